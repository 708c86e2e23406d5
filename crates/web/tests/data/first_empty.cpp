// Pah-tum in C++, hello-world grade: takes the first empty square.
#include <iostream>
#include <string>
int main() {
    std::string rows[7];
    int xs = 0, os = 0;
    for (auto &row : rows) {
        if (!(std::cin >> row) || row.size() != 7) return 1;
        for (char c : row) { xs += c == 'X'; os += c == 'O'; }
    }
    char me = xs == os ? 'X' : 'O';
    bool done = false;
    for (auto &row : rows)
        for (char &c : row)
            if (!done && c == '-') { c = me; done = true; }
    for (auto &row : rows) std::cout << row << '\n';
    return done ? 0 : 1;
}
