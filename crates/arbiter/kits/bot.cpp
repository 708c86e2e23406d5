// {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
// Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form reads). It starts as a random player: it plays a random move of the
// `legal` line. Make it better in choose_move.
//
// The referee writes one line at a time on stdin; the bot answers on stdout, one line,
// flushed (std::endl flushes). Debug output goes to stderr (kept in the game record).
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

// The move to play. `legal` lists every legal move in the game's notation; it is empty
// in a game whose moves cannot be listed (Legions), where "" is a turn without orders.
static std::string choose_move(const std::vector<std::string>& legal, std::mt19937& rng) {
    if (legal.empty()) return "";
    return legal[rng() % legal.size()];
}

int main() {
    // The game's seed for this side (the `seed` line; ARBITER_SEED before it): the same
    // `--seed` gives the same games, move for move.
    const char* seed = std::getenv("ARBITER_SEED");
    std::mt19937 rng(seed ? std::strtoul(seed, nullptr, 10) : 0);
    std::vector<std::string> legal;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::istringstream words(line);
        std::string word;
        words >> word;
        if (word == "arbiter") {
            std::cout << "name {{NAME}}\nready" << std::endl;
        } else if (word == "seed") {
            unsigned long seed_line = 0;
            words >> seed_line;
            rng.seed(seed_line);
        } else if (word == "position") {
            legal.clear();
        } else if (word == "legal") {
            legal.clear();
            for (std::string move; words >> move;) legal.push_back(move);
        } else if (word == "go") {
            std::string move = choose_move(legal, rng);
            std::cerr << "playing '" << move << "'" << std::endl;
            std::cout << "move " << move << std::endl;
        } else if (word == "quit") {
            break;
        }
        // Other lines (game, side, start, opponent, time, result) are not needed here.
    }
}
