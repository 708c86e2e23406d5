/* Connect Four TCP client library (docs/protocols/connect4-tcp.md).
 *
 * A player is a name and three functions, the seed's API:
 *   wake(width, height, i_start)   a game starts; i_start is 1 when you move first
 *   move(board, last_move)         your turn: return a column 0..width-1
 *   game_over(result)              the game ended: C4_WIN, C4_LOSS or C4_DRAW
 * board->cell[x][y] is the cell at column x (0 = left), row y (0 = bottom): C4_EMPTY,
 * C4_MINE or C4_OPPONENT. last_move is the opponent's last column, or -1 when you move
 * first; it is already on the board. One connection plays any number of games.
 *
 * c4_run connects to the address given as the first command-line argument, or else in
 * the environment variable ARBITER_ADDR (host:port), or else 127.0.0.1:4000.
 */
#ifndef C4CLIENT_H
#define C4CLIENT_H

#define C4_MAX 32

enum { C4_EMPTY = 0, C4_MINE = 1, C4_OPPONENT = 2 };
enum { C4_WIN = 0, C4_LOSS = 1, C4_DRAW = 2 };

typedef struct {
    int width, height;
    char cell[C4_MAX][C4_MAX]; /* cell[x][y], y = 0 at the bottom */
} c4_board;

typedef struct {
    const char *name;
    void (*wake)(int width, int height, int i_start);
    int (*move)(const c4_board *board, int last_move);
    void (*game_over)(int result);
} c4_player;

/* Plays games until the server says bye; returns 0 then, 1 on a connection error. */
int c4_run(const c4_player *player, int argc, char **argv);

#endif
