// {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
// Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form
// reads). It starts as a random player: it plays a random move of the `legal` line.
// Make it better in chooseMove.
//
// The referee writes one line at a time on stdin; the bot answers on stdout, one line,
// flushed. Debug output goes to stderr (it is kept in the game record, per move).
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.Random;

class Bot {
    // The game's seed for this side (the `seed` line; ARBITER_SEED before it): the same
    // `--seed` gives the same games, move for move.
    static Random rng = new Random(seedOf(System.getenv("ARBITER_SEED")));

    static long seedOf(String text) {
        try {
            return text == null ? 0 : Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    // The move to play. `legal` lists every legal move in the game's notation; it is
    // empty in a game whose moves cannot be listed (Legions), where "" is a turn without
    // orders.
    static String chooseMove(String[] legal) {
        return legal.length == 0 ? "" : legal[rng.nextInt(legal.length)];
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String[] legal = new String[0];
        String line;
        while ((line = in.readLine()) != null) {
            line = line.replaceAll("\r$", "");
            int space = line.indexOf(' ');
            String word = space < 0 ? line : line.substring(0, space);
            String rest = space < 0 ? "" : line.substring(space + 1);
            if (word.equals("arbiter")) {
                System.out.print("name {{NAME}}\nready\n");
                System.out.flush();
            } else if (word.equals("seed")) {
                rng = new Random(seedOf(rest));
            } else if (word.equals("position")) {
                legal = new String[0];
            } else if (word.equals("legal")) {
                legal = rest.split(" ");
            } else if (word.equals("go")) {
                String move = chooseMove(legal);
                System.err.println("playing '" + move + "'");
                System.out.print("move " + move + "\n");
                System.out.flush();
            } else if (word.equals("quit")) {
                break;
            }
            // Other lines (game, side, start, opponent, time, result) are not needed here.
        }
    }
}
