// Connect Four TCP client library for C++ (docs/protocols/connect4-tcp.md), header only.
//
// A player is a class with a name and three functions, the seed's API:
//   wake(width, height, i_start)   a game starts; i_start is true when you move first
//   move(board, last_move)         your turn: return a column 0..width-1
//   game_over(result)              the game ended: c4::Result::Win, Loss or Draw
// board.cell(x, y) is the cell at column x (0 = left), row y (0 = bottom): c4::Empty,
// c4::Mine or c4::Opponent. last_move is the opponent's last column, or -1 when you move
// first; it is already on the board. One connection plays any number of games.
//
// c4::run connects to the address given as the first command-line argument, or else in
// the environment variable ARBITER_ADDR (host:port), or else 127.0.0.1:4000.
#ifndef C4CLIENT_HPP
#define C4CLIENT_HPP

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace c4 {

enum Cell { Empty = 0, Mine = 1, Opponent = 2 };
enum class Result { Win, Loss, Draw };

struct Board {
    int width = 0, height = 0;
    std::vector<Cell> cells;  // column by column, bottom up
    Cell cell(int x, int y) const { return cells[x * height + y]; }

    // From the rows of a `move` line (top row first, joined by '/').
    static Board parse(const std::string& text) {
        Board board;
        std::vector<std::string> rows;
        std::stringstream in(text);
        for (std::string row; std::getline(in, row, '/');) rows.push_back(row);
        board.height = static_cast<int>(rows.size());
        board.width = rows.empty() ? 0 : static_cast<int>(rows[0].size());
        board.cells.assign(board.width * board.height, Empty);
        for (int row = 0; row < board.height; row++)
            for (int x = 0; x < board.width && x < static_cast<int>(rows[row].size()); x++) {
                char c = rows[row][x];
                board.cells[x * board.height + (board.height - 1 - row)] = c == 'M' ? Mine : c == 'T' ? Opponent : Empty;
            }
        return board;
    }
};

class Player {
public:
    virtual ~Player() = default;
    virtual std::string name() const = 0;
    virtual void wake(int width, int height, bool i_start) = 0;
    virtual int move(const Board& board, int last_move) = 0;
    virtual void game_over(Result result) = 0;
};

inline int connect_to(const std::string& address) {
    auto colon = address.rfind(':');
    if (colon == std::string::npos) {
        std::cerr << "c4client: bad address " << address << " (want host:port)" << std::endl;
        return -1;
    }
    std::string host = address.substr(0, colon), port = address.substr(colon + 1);
    addrinfo hints{}, *found = nullptr;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host.empty() ? "127.0.0.1" : host.c_str(), port.c_str(), &hints, &found) != 0) {
        std::cerr << "c4client: cannot resolve " << address << std::endl;
        return -1;
    }
    int fd = -1;
    for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(found);
    if (fd < 0) {
        std::cerr << "c4client: cannot connect to " << address << std::endl;
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

// Plays games until the server says bye; returns 0 then, 1 on a connection error.
inline int run(Player& player, int argc, char** argv) {
    const char* given = argc > 1 ? argv[1] : std::getenv("ARBITER_ADDR");
    int fd = connect_to(given ? given : "127.0.0.1:4000");
    if (fd < 0) return 1;
    FILE* in = fdopen(fd, "r");
    FILE* out = fdopen(dup(fd), "w");
    if (in == nullptr || out == nullptr) return 1;
    static char line[4096];
    while (std::fgets(line, sizeof line, in) != nullptr) {
        std::istringstream words(line);
        std::string word;
        words >> word;
        if (word == "hello") {
            std::fprintf(out, "name %s\n", player.name().c_str());
        } else if (word == "wake") {
            int width = 0, height = 0, i_start = 0;
            words >> width >> height >> i_start;
            player.wake(width, height, i_start == 1);
        } else if (word == "move") {
            int last = -1;
            std::string board;
            words >> last >> board;
            std::fprintf(out, "%d\n", player.move(Board::parse(board), last));
        } else if (word == "over") {
            std::string result;
            words >> result;
            player.game_over(result == "win" ? Result::Win : result == "loss" ? Result::Loss : Result::Draw);
        } else if (word == "bye") {
            break;
        }
        std::fflush(out);
    }
    std::fclose(out);
    std::fclose(in);
    return 0;
}

}  // namespace c4

#endif
