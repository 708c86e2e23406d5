// Connect Four TCP client library for C# (docs/protocols/connect4-tcp.md).
//
// A player implements IPlayer: a Name and three methods, the seed's API:
//   Wake(width, height, iStart)    a game starts; iStart is true when you move first
//   Move(board, lastMove)          your turn: return a column 0..width-1
//   GameOver(result)               the game ended: "win", "loss" or "draw"
// board[x, y] is the cell at column x (0 = left), row y (0 = bottom): C4Client.Empty,
// Mine or Opponent. lastMove is the opponent's last column, or -1 when you move first;
// it is already on the board. One connection plays any number of games.
//
// C4Client.Run connects to the address given as the first command-line argument, or
// else in the environment variable ARBITER_ADDR (host:port), or else 127.0.0.1:4000.
using System;
using System.IO;
using System.Net.Sockets;

public interface IPlayer
{
    string Name { get; }
    void Wake(int width, int height, bool iStart);
    int Move(int[,] board, int lastMove);
    void GameOver(string result);
}

public static class C4Client
{
    public const int Empty = 0, Mine = 1, Opponent = 2;

    // board[x, y] from the rows of a `move` line (top row first, joined by '/').
    public static int[,] ParseBoard(string text)
    {
        string[] rows = text.Split('/');
        int height = rows.Length, width = rows[0].Length;
        var board = new int[width, height];
        for (int row = 0; row < height; row++)
            for (int x = 0; x < width && x < rows[row].Length; x++)
            {
                char c = rows[row][x];
                board[x, height - 1 - row] = c == 'M' ? Mine : c == 'T' ? Opponent : Empty;
            }
        return board;
    }

    // Plays games until the server says bye; returns 0 then, 1 on a connection error.
    public static int Run(IPlayer player, string[] args)
    {
        string address = args.Length > 0 ? args[0] : (Environment.GetEnvironmentVariable("ARBITER_ADDR") ?? "127.0.0.1:4000");
        int colon = address.LastIndexOf(':');
        string host = colon > 0 ? address.Substring(0, colon) : "127.0.0.1";
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            socket.NoDelay = true;
            socket.Connect(host, int.Parse(address.Substring(colon + 1)));
        }
        catch (Exception e)
        {
            Console.Error.WriteLine("c4client: cannot connect to " + address + ": " + e.Message);
            return 1;
        }
        using (var stream = new NetworkStream(socket, true))
        {
            var input = new StreamReader(stream);
            var output = new StreamWriter(stream);
            output.NewLine = "\n";
            string line;
            while ((line = input.ReadLine()) != null)
            {
                string[] words = line.Trim().Split(' ');
                if (words[0] == "hello")
                    output.WriteLine("name " + player.Name);
                else if (words[0] == "wake" && words.Length >= 4)
                    player.Wake(int.Parse(words[1]), int.Parse(words[2]), words[3] == "1");
                else if (words[0] == "move" && words.Length >= 3)
                    output.WriteLine(player.Move(ParseBoard(words[2]), int.Parse(words[1])).ToString());
                else if (words[0] == "over" && words.Length >= 2)
                    player.GameOver(words[1]);
                else if (words[0] == "bye")
                    break;
                output.Flush();
            }
        }
        return 0;
    }
}
