// Connect Four random player (the seed's baseline) over TCP, in Java: drops its disc
// into a random column that has room, from the seed in ARBITER_SEED (the same game seed,
// the same moves). Debug output goes to stderr.
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class RandomBot implements C4Client.Player {
    private final Random rng;
    private int height;

    RandomBot() {
        long seed = 0;
        try {
            seed = Long.parseLong(System.getenv().getOrDefault("ARBITER_SEED", "0").trim());
        } catch (NumberFormatException e) {
            seed = 0;
        }
        rng = new Random(seed);
    }

    public String name() {
        return "random-java";
    }

    public void wake(int width, int height, boolean iStart) {
        this.height = height;
        System.err.println("new game " + width + "x" + height + ", " + (iStart ? "I" : "they") + " start");
    }

    public int move(int[][] board, int lastMove) {
        List<Integer> open = new ArrayList<>();
        for (int x = 0; x < board.length; x++) {
            if (board[x][height - 1] == C4Client.EMPTY) open.add(x);
        }
        int column = open.get(rng.nextInt(open.size()));
        System.err.println("they played " + lastMove + ", I play " + column);
        return column;
    }

    public void gameOver(String result) {
        System.err.println("game over: " + result);
    }

    public static void main(String[] args) {
        System.exit(C4Client.run(new RandomBot(), args));
    }
}
