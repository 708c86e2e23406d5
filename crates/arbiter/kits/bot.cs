// {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
// Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form
// reads). It starts as a random player: it plays a random move of the `legal` line.
// Make it better in ChooseMove.
//
// The referee writes one line at a time on stdin; the bot answers on stdout, one line,
// flushed. Debug output goes to stderr (it is kept in the game record, per move).
using System;

class Bot
{
    // The game's seed for this side (the `seed` line; ARBITER_SEED before it): the same
    // `--seed` gives the same games, move for move.
    static Random rng = new Random(SeedOf(Environment.GetEnvironmentVariable("ARBITER_SEED")));

    static int SeedOf(string text)
    {
        long seed;
        return text != null && long.TryParse(text.Trim(), out seed) ? (int)(seed & 0x7fffffff) : 0;
    }

    // The move to play. `legal` lists every legal move in the game's notation; it is
    // empty in a game whose moves cannot be listed (Legions), where "" is a turn without
    // orders.
    static string ChooseMove(string[] legal)
    {
        return legal.Length == 0 ? "" : legal[rng.Next(legal.Length)];
    }

    static void Main()
    {
        string[] legal = new string[0];
        string line;
        while ((line = Console.In.ReadLine()) != null)
        {
            line = line.TrimEnd('\r');
            int space = line.IndexOf(' ');
            string word = space < 0 ? line : line.Substring(0, space);
            string rest = space < 0 ? "" : line.Substring(space + 1);
            if (word == "arbiter")
            {
                Console.Out.Write("name {{NAME}}\nready\n");
                Console.Out.Flush();
            }
            else if (word == "seed")
            {
                rng = new Random(SeedOf(rest));
            }
            else if (word == "position")
            {
                legal = new string[0];
            }
            else if (word == "legal")
            {
                legal = rest.Split(' ');
            }
            else if (word == "go")
            {
                string move = ChooseMove(legal);
                Console.Error.WriteLine("playing '" + move + "'");
                Console.Out.Write("move " + move + "\n");
                Console.Out.Flush();
            }
            else if (word == "quit")
            {
                break;
            }
            // Other lines (game, side, start, opponent, time, result) are not needed here.
        }
    }
}
