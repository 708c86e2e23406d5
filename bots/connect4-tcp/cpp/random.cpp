// Connect Four random player (the seed's baseline) over TCP, in C++: drops its disc into
// a random column that has room, from the seed in ARBITER_SEED (the same game seed, the
// same moves). Debug output goes to stderr.
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "c4client.hpp"

class RandomPlayer : public c4::Player {
public:
    RandomPlayer() {
        const char* seed = std::getenv("ARBITER_SEED");
        rng_.seed(seed ? std::strtoul(seed, nullptr, 10) : 0);
    }
    std::string name() const override { return "random-cpp"; }
    void wake(int width, int height, bool i_start) override {
        std::cerr << "new game " << width << "x" << height << ", " << (i_start ? "I" : "they") << " start" << std::endl;
    }
    int move(const c4::Board& board, int last_move) override {
        std::vector<int> open;
        for (int x = 0; x < board.width; x++)
            if (board.cell(x, board.height - 1) == c4::Empty) open.push_back(x);
        int column = open[rng_() % open.size()];
        std::cerr << "they played " << last_move << ", I play " << column << std::endl;
        return column;
    }
    void game_over(c4::Result result) override {
        std::cerr << "game over: " << (result == c4::Result::Win ? "win" : result == c4::Result::Loss ? "loss" : "draw") << std::endl;
    }

private:
    std::mt19937 rng_;
};

int main(int argc, char** argv) {
    RandomPlayer player;
    return c4::run(player, argc, argv);
}
