/* Connect Four TCP client library: connects, speaks the line protocol, calls the
 * player's functions (see c4client.h and docs/protocols/connect4-tcp.md). */
#define _POSIX_C_SOURCE 200112L
#include "c4client.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int connect_to(const char *address) {
    char host[256];
    const char *colon = strrchr(address, ':');
    if (colon == NULL || (size_t)(colon - address) >= sizeof host) {
        fprintf(stderr, "c4client: bad address %s (want host:port)\n", address);
        return -1;
    }
    memcpy(host, address, (size_t)(colon - address));
    host[colon - address] = '\0';
    struct addrinfo hints, *found, *ai;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host[0] ? host : "127.0.0.1", colon + 1, &hints, &found) != 0) {
        fprintf(stderr, "c4client: cannot resolve %s\n", address);
        return -1;
    }
    int fd = -1;
    for (ai = found; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(found);
    if (fd < 0) {
        fprintf(stderr, "c4client: cannot connect to %s\n", address);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Reads "rows top to bottom joined by '/'" into board->cell[x][y]. */
static void parse_board(const char *text, c4_board *board) {
    int width = (int)strcspn(text, "/");
    int height = 1;
    const char *p;
    for (p = text; *p; p++) height += *p == '/';
    board->width = width;
    board->height = height;
    for (int row = 0; row < height && row < C4_MAX; row++) {
        for (int x = 0; x < width && x < C4_MAX; x++) {
            char c = text[row * (width + 1) + x];
            board->cell[x][height - 1 - row] = c == 'M' ? C4_MINE : c == 'T' ? C4_OPPONENT : C4_EMPTY;
        }
    }
}

int c4_run(const c4_player *player, int argc, char **argv) {
    const char *address = argc > 1 ? argv[1] : getenv("ARBITER_ADDR");
    int fd = connect_to(address ? address : "127.0.0.1:4000");
    if (fd < 0) return 1;
    FILE *in = fdopen(fd, "r");
    FILE *out = fdopen(dup(fd), "w");
    if (in == NULL || out == NULL) return 1;
    static char line[4096], board_text[4096];
    static c4_board board;
    while (fgets(line, sizeof line, in) != NULL) {
        int a, b, c;
        char word[16];
        if (sscanf(line, "wake %d %d %d", &a, &b, &c) == 3) {
            player->wake(a, b, c);
        } else if (sscanf(line, "move %d %4095s", &a, board_text) == 2) {
            parse_board(board_text, &board);
            fprintf(out, "%d\n", player->move(&board, a));
        } else if (sscanf(line, "over %15s", word) == 1) {
            player->game_over(strcmp(word, "win") == 0 ? C4_WIN : strcmp(word, "loss") == 0 ? C4_LOSS : C4_DRAW);
        } else if (strncmp(line, "hello", 5) == 0) {
            fprintf(out, "name %s\n", player->name);
        } else if (strncmp(line, "bye", 3) == 0) {
            break;
        }
        fflush(out);
    }
    fclose(out);
    fclose(in);
    return 0;
}
