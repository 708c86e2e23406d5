// Connect Four random player (the seed's baseline) over TCP, in C#: drops its disc into
// a random column that has room, from the seed in ARBITER_SEED (the same game seed, the
// same moves). Debug output goes to stderr.
using System;
using System.Collections.Generic;

class RandomBot : IPlayer
{
    Random rng;
    int height;

    RandomBot()
    {
        long seed;
        string text = Environment.GetEnvironmentVariable("ARBITER_SEED");
        rng = new Random(text != null && long.TryParse(text, out seed) ? (int)(seed & 0x7fffffff) : 0);
    }

    public string Name { get { return "random-cs"; } }

    public void Wake(int width, int height, bool iStart)
    {
        this.height = height;
        Console.Error.WriteLine("new game " + width + "x" + height + ", " + (iStart ? "I" : "they") + " start");
    }

    public int Move(int[,] board, int lastMove)
    {
        var open = new List<int>();
        for (int x = 0; x < board.GetLength(0); x++)
            if (board[x, height - 1] == C4Client.Empty) open.Add(x);
        int column = open[rng.Next(open.Count)];
        Console.Error.WriteLine("they played " + lastMove + ", I play " + column);
        return column;
    }

    public void GameOver(string result)
    {
        Console.Error.WriteLine("game over: " + result);
    }

    static int Main(string[] args)
    {
        return C4Client.Run(new RandomBot(), args);
    }
}
