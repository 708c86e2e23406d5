// Connect Four TCP client library for Java (docs/protocols/connect4-tcp.md).
//
// A player implements C4Client.Player: a name and three methods, the seed's API:
//   wake(width, height, iStart)    a game starts; iStart is true when you move first
//   move(board, lastMove)          your turn: return a column 0..width-1
//   gameOver(result)               the game ended: "win", "loss" or "draw"
// board[x][y] is the cell at column x (0 = left), row y (0 = bottom): C4Client.EMPTY,
// MINE or OPPONENT. lastMove is the opponent's last column, or -1 when you move first;
// it is already on the board. One connection plays any number of games.
//
// C4Client.run connects to the address given as the first command-line argument, or
// else in the environment variable ARBITER_ADDR (host:port), or else 127.0.0.1:4000.
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

public final class C4Client {
    public static final int EMPTY = 0, MINE = 1, OPPONENT = 2;

    public interface Player {
        String name();
        void wake(int width, int height, boolean iStart);
        int move(int[][] board, int lastMove);
        void gameOver(String result);
    }

    /** board[x][y] from the rows of a `move` line (top row first, joined by '/'). */
    public static int[][] parseBoard(String text) {
        String[] rows = text.split("/");
        int height = rows.length, width = rows[0].length();
        int[][] board = new int[width][height];
        for (int row = 0; row < height; row++) {
            for (int x = 0; x < width && x < rows[row].length(); x++) {
                char c = rows[row].charAt(x);
                board[x][height - 1 - row] = c == 'M' ? MINE : c == 'T' ? OPPONENT : EMPTY;
            }
        }
        return board;
    }

    /** Plays games until the server says bye; returns 0 then, 1 on a connection error. */
    public static int run(Player player, String[] args) {
        String address = args.length > 0 ? args[0] : System.getenv("ARBITER_ADDR");
        if (address == null) address = "127.0.0.1:4000";
        int colon = address.lastIndexOf(':');
        String host = colon > 0 ? address.substring(0, colon) : "127.0.0.1";
        try (Socket socket = new Socket(host, Integer.parseInt(address.substring(colon + 1)))) {
            socket.setTcpNoDelay(true);
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            PrintWriter out = new PrintWriter(socket.getOutputStream(), false, StandardCharsets.UTF_8);
            String line;
            while ((line = in.readLine()) != null) {
                String[] words = line.trim().split(" ");
                if (words[0].equals("hello")) {
                    out.print("name " + player.name() + "\n");
                } else if (words[0].equals("wake") && words.length >= 4) {
                    player.wake(Integer.parseInt(words[1]), Integer.parseInt(words[2]), words[3].equals("1"));
                } else if (words[0].equals("move") && words.length >= 3) {
                    out.print(player.move(parseBoard(words[2]), Integer.parseInt(words[1])) + "\n");
                } else if (words[0].equals("over") && words.length >= 2) {
                    player.gameOver(words[1]);
                } else if (words[0].equals("bye")) {
                    break;
                }
                out.flush();
            }
            return 0;
        } catch (IOException | NumberFormatException e) {
            System.err.println("c4client: cannot play over " + address + ": " + e.getMessage());
            return 1;
        }
    }

    private C4Client() {}
}
