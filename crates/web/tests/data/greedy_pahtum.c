/* Pah-tum, one ply of lookahead: puts its letter where it gains the most points plus
 * what the opponent would gain there, ties broken by own neighbours, then reading order.
 * Reads the 56-character board on stdin, writes it back with one move. */
#include <stdio.h>
#include <string.h>

static const int VAL[8] = {0, 0, 0, 3, 10, 25, 56, 119};

static int lines(char b[7][8], char l) {
    int s = 0;
    for (int i = 0; i < 7; i++) {
        int h = 0, v = 0;
        for (int j = 0; j <= 7; j++) {
            if (j < 7 && b[i][j] == l) h++; else { s += VAL[h]; h = 0; }
            if (j < 7 && b[j][i] == l) v++; else { s += VAL[v]; v = 0; }
        }
    }
    return s;
}

int main(void) {
    char b[7][8];
    int xs = 0, os = 0;
    for (int r = 0; r < 7; r++) {
        if (scanf("%7s", b[r]) != 1 || strlen(b[r]) != 7) return 1;
        for (int c = 0; c < 7; c++) { xs += b[r][c] == 'X'; os += b[r][c] == 'O'; }
    }
    char me = xs == os ? 'X' : 'O', them = me == 'X' ? 'O' : 'X';
    int mine = lines(b, me), theirs = lines(b, them), best = -1, bi = -1, bj = -1;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++) {
            if (b[i][j] != '-') continue;
            b[i][j] = me;
            int g = lines(b, me) - mine;
            b[i][j] = them;
            g += lines(b, them) - theirs;
            b[i][j] = '-';
            int n = (i > 0 && b[i - 1][j] == me) + (i < 6 && b[i + 1][j] == me) + (j > 0 && b[i][j - 1] == me) + (j < 6 && b[i][j + 1] == me);
            if (g * 8 + n > best) { best = g * 8 + n; bi = i; bj = j; }
        }
    if (bi < 0) return 1;
    b[bi][bj] = me;
    for (int r = 0; r < 7; r++) printf("%s\n", b[r]);
    return 0;
}
