// Browser tests of the web arena: starts `arbiter serve` on a free port of 127.0.0.1,
// drives Debian's headless Chromium through Playwright, and saves a screenshot of each
// page into docs/screenshots/. Run by crates/arbiter/tests/browser.rs (ARBITER_BIN is
// the binary under test); `node run.mjs` alone works too after `cargo build --workspace`.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const bin = process.env.ARBITER_BIN || join(root, "target/debug/arbiter");
const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";
const shots = process.env.SCREENSHOTS || join(root, "docs/screenshots");
const token = "browser-test-token";
const only = process.env.ONLY ? process.env.ONLY.split(",") : null;
mkdirSync(shots, { recursive: true });

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => { const { port } = server.address(); server.close(() => ok(port)); });
  });
}

/** Starts the server; resolves when it listens. */
async function startServer(data) {
  const port = await freePort();
  const child = spawn(bin, ["serve", "--data", data, "--addr", `127.0.0.1:${port}`, "--admin-token", token,
    "--presets", join(root, "presets"), "-j", "2"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stderr.on("data", d => { output += d; });
  await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error("the server did not start within 30 s: " + output)), 30000);
    child.stdout.on("data", d => { output += d; if (output.includes("http://")) { clearTimeout(timer); ok(); } });
    child.on("exit", code => { clearTimeout(timer); fail(new Error(`the server exited with ${code}: ${output}`)); });
  });
  return { child, base: `http://127.0.0.1:${port}`, output: () => output };
}

async function json(base, path, options = {}) {
  const response = await fetch(base + path, options);
  const body = await response.json();
  return { status: response.status, body };
}

async function post(base, path, body, withToken = false) {
  const headers = { "Content-Type": "application/json" };
  if (withToken) headers.Authorization = "Bearer " + token;
  return json(base, path, { method: "POST", headers, body: JSON.stringify(body) });
}

/** Waits until `check()` is true (polling), failing after `ms`. */
async function until(what, check, ms = 60000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise(r => setTimeout(r, 200));
  }
  throw new Error("timed out waiting for " + what);
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

// Every game the binary knows (`arbiter games --json`), so that a game added to the
// registry is drawn, replayed and played here without a change to this file.
const games = JSON.parse(execFileSync(bin, ["games", "--json"], { encoding: "utf8" }));
// Options that keep a game short where its default board is large.
const quick = { legions: { size: "9" } };

// ---------------------------------------------------------------------------------------

test("a request without the organiser's token is refused, and spectators see no organiser's form", async ({ page, base }) => {
  const bare = await post(base, "/api/tournaments", { preset: "pahtum-2019" });
  assert.equal(bare.status, 401);
  assert.match(bare.body.error, /token/);
  const wrong = await json(base, "/api/freeze", { method: "POST", headers: { "Content-Type": "application/json", Authorization: "Bearer nope" }, body: "{\"frozen\":true}" });
  assert.equal(wrong.status, 403);
  // A spectator's pages hold no admin form.
  await useToken(page, base, "");
  for (const [path, ready] of [["/", "#games"], ["/ladders", "#ladders"], ["/submit", "#bots"], ["/entrants", "#whoami:not(:empty)"]]) {
    await page.goto(base + path);
    await page.waitForSelector(ready, { state: "attached" });
    await page.waitForFunction(() => document.getElementById("signed-in").textContent === "Sign in");
    const shown = await page.$$eval("[data-organiser], #organiser", nodes => nodes.filter(n => !n.hidden && n.offsetParent !== null).length);
    assert.equal(shown, 0, `${path} shows an organiser's form to a spectator`);
    assert.equal(await page.locator("#start-button:visible, #start-ladder:visible, #freeze:visible, #add-button:visible").count(), 0, path);
  }
  assert.equal((await json(base, "/api/tournaments")).body.length, 0, "nothing was started");
  await page.goto(base + "/");
  await page.screenshot({ path: join(shots, "tournaments-refused.png"), fullPage: true });
});

test("a live tournament's standings change as games finish", async ({ page, base }) => {
  await useToken(page, base, token);
  await page.goto(base + "/");
  await page.waitForSelector("#organiser:not([hidden])");
  await page.selectOption("#preset", "pahtum-2019");
  await page.click("#start-button");
  await page.waitForURL(/\/tournaments\//);
  await page.waitForSelector("table.standings");
  // The count and the table from one render (two reads could straddle an update and
  // pair the count before a game with the table after it).
  const [first, firstTable] = await page.evaluate(() =>
    [Number(document.body.dataset.games), document.querySelector("table.standings").textContent]);
  await until("two more finished games on the page", async () => Number(await page.getAttribute("body", "data-games")) >= first + 2, 120000);
  const later = await page.textContent("table.standings");
  assert.notEqual(later, firstTable, "the standings table changed");
  assert.ok(Number(await page.getAttribute("body", "data-updates")) >= 2, "more than one update arrived");
  await page.screenshot({ path: join(shots, "tournament-live.png"), fullPage: true });
  // A finished tournament game replays from the list.
  await page.click("#finished tbody tr:first-child a");
  await page.waitForSelector("svg[data-game=pahtum]");
  await page.click("#last");
  await page.waitForSelector("#result:not([hidden])");
  await page.goto(base + "/");
  await page.waitForSelector("#tournaments tbody tr");
  await page.screenshot({ path: join(shots, "tournaments.png"), fullPage: true });
});

test("a groups stage shows one table per group and a double elimination its bracket", async ({ page, base }) => {
  let config = "name = \"Bracket\"\ngame = \"legions\"\nseed = 9\n[options]\nsize = 7\n";
  for (const [name, bot] of [["r1", "random"], ["g1", "greedy"], ["r2", "random"], ["g2", "greedy"]]) {
    config += `[[entrant]]\nname = "${name}"\nbot = "${bot}"\n`;
  }
  config += "[[stage]]\nname = \"groups\"\nformat = \"groups\"\ngroups = 2\ndeals = 1\nswap = true\nscoring = \"score-sum\"\n";
  config += "[[stage]]\nname = \"bracket\"\nformat = \"double-elimination\"\ndeals = 1\nswap = true\nscoring = \"score-sum\"\n";
  const started = await post(base, "/api/tournaments", { config }, true);
  assert.equal(started.status, 201, JSON.stringify(started.body));
  const id = started.body.id;
  await page.goto(`${base}/tournaments/${encodeURIComponent(id)}`);
  await until("the bracket decided on the page", async () =>
    (await page.locator(".stage").count()) === 2 && /decided/.test(await page.textContent(".stage:nth-of-type(2) h2")), 120000);
  // Finished: no "● live" any more.
  await until("the tournament finished", async () => /finished/.test(await page.textContent("#status")), 60000);
  assert.equal(await page.textContent("#live"), "", "a finished tournament is not live");
  const report = (await json(base, `/api/tournaments/${encodeURIComponent(id)}`)).body.report;
  // One table per group, each in the report's order.
  for (const group of report.stages[0].groups) {
    const shown = await page.$$eval(`table.standings[data-group="${group.name}"] tbody tr`, rows => rows.map(r => r.dataset.entrant));
    assert.deepEqual(shown, group.rows.map(r => r.entrant), group.name);
  }
  assert.equal(report.stages[0].groups.length, 2);
  // The bracket stage: its table in the decided order, then every match of the bracket.
  const table = await page.$$eval('table.standings[data-stage="1"] tbody tr', rows => rows.map(r => r.dataset.entrant));
  assert.deepEqual(table, report.stages[1].rows.map(r => r.entrant));
  assert.equal(await page.locator("table.bracket tbody tr").count(), report.stages[1].bracket.length);
  const last = await page.textContent("table.bracket tbody tr:last-child");
  assert.match(last, /final/);
  assert.ok(last.includes(report.stages[1].rows[0].entrant) && last.includes("champion"), last);
  // The bracket is drawn too: every match in a column of its part and round, the
  // champion's last match won in bold.
  const bracket = report.stages[1].bracket;
  assert.equal(await page.locator(".bracket-diagram .bracket-match").count(), bracket.length);
  assert.equal(await page.locator('.bracket-part[data-part="final"] .bracket-match').count(), 1, "one final");
  const final = bracket[bracket.length - 1];
  assert.equal(await page.textContent(`.bracket-match[data-match="${final.number}"] .bracket-side.won span`), final.winner);
  await page.screenshot({ path: join(shots, "tournament-bracket.png"), fullPage: true });
});

for (const game of games.map(g => g.name)) {
  test(`a ${game} game replays and steps`, async ({ page, base }) => {
    const started = await post(base, "/api/test", { game, bots: ["greedy", "random"], games: 1, seed: 7, options: quick[game] || {} });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const id = started.body.games[0];
    await until(`${game} game to end`, async () => !(await json(base, `/api/games/${id}`)).body.live);
    const record = (await json(base, `/api/games/${id}`)).body;
    await page.goto(`${base}/games/${id}`);
    await page.waitForSelector(`svg[data-game=${game}]`);
    // A finished game opens at its end; a link to a move opens there.
    assert.equal(await page.textContent("#ply-label"), `move ${record.moves.length} of ${record.moves.length}`);
    await page.goto(`${base}/games/${id}?ply=1`);
    await page.waitForSelector(`svg[data-game=${game}]`);
    assert.equal(await page.textContent("#ply-label"), `move 1 of ${record.moves.length}`);
    await page.click("#first");
    assert.equal(await page.textContent("#ply-label"), `move 0 of ${record.moves.length}`);
    const start = await page.innerHTML("#board");
    await page.click("#next");
    await page.click("#next");
    assert.equal(await page.textContent("#ply-label"), `move 2 of ${record.moves.length}`);
    assert.notEqual(await page.innerHTML("#board"), start, "the board changed");
    await page.click("#prev");
    assert.equal(await page.textContent("#ply-label"), `move 1 of ${record.moves.length}`);
    // Jump to a move from the list, then to the end.
    const middle = Math.max(1, Math.floor(record.moves.length / 2));
    await page.click(`#moves span[data-ply="${middle}"]`);
    assert.equal(await page.textContent("#ply-label"), `move ${middle} of ${record.moves.length}`);
    await page.click("#last");
    await page.waitForSelector("#result:not([hidden])");
    assert.match(await page.textContent("#result"), /Result: /);
    assert.match(await page.textContent("#log-name-0"), /greedy/);
    // The debug panel writes the move as the move list does ("17. column 1", not "turn 17: 0").
    const note = await page.textContent("#log-note-0");
    const listed = await page.$$eval("#moves span[data-ply]", spans => spans.map(s => s.textContent));
    assert.ok(listed.includes(note.split(", ")[0]), `${note} is written as the move list writes it: ${listed.slice(-3)}`);
    // Built-in players are given no input: the viewer says so instead of an empty box.
    assert.match(await page.textContent("#no-input-0"), /a built-in player plays inside the referee/);
    assert.equal(await page.isVisible("#input-box-0"), false);
    await page.screenshot({ path: join(shots, `game-${game}.png`), fullPage: true });
  });
}

test("the testing ground starts a match that is watched live", async ({ page, base }) => {
  await page.goto(base + "/test");
  await page.selectOption("#game", "connect4");
  await page.fill("input[name=opt-width]", "9");
  await page.selectOption("#bot0", "greedy");
  await page.selectOption("#bot1", "random");
  await page.fill("#count", "2");
  await page.screenshot({ path: join(shots, "testing-ground.png"), fullPage: true });
  await page.click("#start-test");
  await page.waitForURL(/\/games\//);
  await page.waitForSelector("svg[data-game=connect4]");
  await page.waitForSelector("#result:not([hidden])", { timeout: 60000 });
  assert.match(await page.textContent("#origin"), /game 1 of 2/);
});

test("a person plays a game to its end by clicking, and an illegal click is refused", async ({ page, base }) => {
  await page.goto(base + "/play");
  await page.selectOption("#game", "gomoku");
  await page.selectOption("#bot", "random");
  await page.selectOption("#side", "0");
  await page.click("#start-play");
  await page.waitForURL(/\/games\//);
  await page.waitForSelector("svg[data-game=gomoku]");
  let refusedOnce = false;
  const order = [];
  for (let y = 0; y < 10; y++) for (let x = 0; x < 10; x++) order.push([x, y]);
  let clicks = 0;
  for (const [x, y] of order) {
    if (await page.isVisible("#result")) break;
    await until("my turn or the end", async () => /Your move|over/.test(await page.textContent("#turn-hint")), 30000);
    if (await page.isVisible("#result")) break;
    const before = await page.textContent("#ply-label");
    if (clicks === 0) {
      // The empty intersections are marked: the rules' legal moves.
      const view = (await json(base, page.url().replace(base, "/api"))).body.views.at(-1);
      await hintsAre(page, view, view.legal, "gomoku: the hints are the legal moves");
    }
    await page.click(`svg g.cell[data-x="${x}"][data-y="${y}"]`);
    clicks += 1;
    // The message is read once per try and kept: the opponent's answer may replace it
    // right after (a second read could see another message, or none).
    let message = "";
    await until("an answer to the click", async () => {
      message = await page.textContent("#message");
      return message !== "" && ((await page.textContent("#ply-label")) !== before || /Refused/.test(message));
    }, 30000);
    if (/Refused/.test(message)) {
      assert.match(message, /occupied|cannot be played/);
      refusedOnce = true;
    }
    if (!refusedOnce && clicks === 3) {
      // Click a stone that is on the board, on our turn (the opponent may still be
      // answering the last click): the rules refuse it with the reason.
      await until("my turn again", async () => /Your move/.test(await page.textContent("#turn-hint")), 30000);
      await page.click(`svg g.cell[data-x="0"][data-y="0"]`);
      let refusal = "";
      await until("the refusal", async () => /Refused/.test(refusal = await page.textContent("#message")), 10000);
      assert.match(refusal, /Refused: .*(occupied|taken|not empty)/i);
      refusedOnce = true;
      await page.screenshot({ path: join(shots, "play-refused.png"), fullPage: true });
    }
  }
  await page.waitForSelector("#result:not([hidden])", { timeout: 30000 });
  assert.ok(refusedOnce, "an illegal click was refused");
  assert.match(await page.textContent("#result"), /win|draw/);
  await page.screenshot({ path: join(shots, "play-gomoku.png"), fullPage: true });
});

/** Starts a human game through the play page; resolves to the game's id. */
async function startHumanGame(page, base, game, options = {}) {
  await page.goto(base + "/play");
  await page.selectOption("#game", game);
  for (const [name, value] of Object.entries(options)) await page.fill(`input[name=opt-${name}]`, value);
  await page.selectOption("#bot", "random");
  await page.selectOption("#side", "0");
  await page.click("#start-play");
  await page.waitForURL(/\/games\//);
  await page.waitForSelector(`svg[data-game=${game}]`);
  return page.url().split("/").pop();
}

/** Waits for the person's turn; false when the game is over instead. */
async function myTurn(page) {
  await until("my turn or the end", async () => /Your move|over/.test(await page.textContent("#turn-hint")), 30000);
  return !/over/.test(await page.textContent("#turn-hint"));
}

/** The names (in `view`) of the cells the page marks as open to the person, sorted. */
async function hintedNames(page, view) {
  const marked = await page.$$eval("svg g.cell", cells => cells.filter(c => c.querySelector("circle.hint")).map(c => [Number(c.dataset.x), Number(c.dataset.y)]));
  return marked.map(([x, y]) => view.cells[y * view.width + x].name).sort();
}

/** Waits until the page's hints are `expected` (names, any order). */
async function hintsAre(page, view, expected, what) {
  const want = [...expected].sort();
  let shown = [];
  await until(what, async () => JSON.stringify(shown = await hintedNames(page, view)) === JSON.stringify(want), 10000)
    .catch(() => assert.deepEqual(shown, want, what));
}


// Every game played by clicking cells or columns, against the random player to its end:
// the person clicks a square the view marks as open when it marks some (Reversi), else
// the first empty one (the first open column), and the Pass button when passing is the
// only move. The games with tests of their own (Gomoku above; Connect Four's columns
// counted from 1, Legions' orders, Nupud's set-up and chess's pieces below) are left out.
const ownTests = new Set(["gomoku", "connect4", "legions", "nupud", "chess"]);
for (const game of games.map(g => g.name).filter(name => !ownTests.has(name))) {
  test(`a person plays ${game} to its end by clicking`, async ({ page, base }) => {
    const id = await startHumanGame(page, base, game, quick[game] || {});
    const first = (await json(base, `/api/games/${id}`)).body.views[0];
    assert.ok(["cell", "column", "pass"].includes(first.input), `${game}: click mode ${first.input} needs a test of its own`);
    let moves = 0;
    while (await myTurn(page)) {
      const view = (await json(base, `/api/games/${id}`)).body.views.at(-1);
      const before = await page.textContent("#ply-label");
      // The page marks exactly the moves the rules allow (a column's landing cell).
      if (view.input !== "pass") await hintsAre(page, view, view.legal, `${game}: the hints are the legal moves`);
      if (view.input === "pass") {
        await page.waitForSelector("#pass-box:not([hidden])");
        await page.screenshot({ path: join(shots, `play-${game}-pass.png`), fullPage: true });
        await page.click("#send-pass");
      } else {
        const open = (c, i) => view.input === "column" ? i < view.width && c.owner === null : c.owner === null && !c.blocked;
        let index = view.cells.findIndex(c => c.hint);
        if (index < 0) index = view.cells.findIndex(open);
        assert.ok(index >= 0, `${game}: no square to click`);
        await page.click(`svg g.cell[data-x="${index % view.width}"][data-y="${Math.floor(index / view.width)}"]`);
      }
      moves += 1;
      await until("the move to be played", async () =>
        (await page.textContent("#ply-label")) !== before || /Refused/.test(await page.textContent("#message")), 30000);
      assert.doesNotMatch(await page.textContent("#message"), /Refused/, `${game}: a click on an open square was refused`);
      if (moves === 4) await page.screenshot({ path: join(shots, `play-${game}.png`), fullPage: true });
    }
    await page.waitForSelector("#result:not([hidden])", { timeout: 30000 });
    assert.match(await page.textContent("#result"), /win|draw/i);
    assert.ok(moves > 0, `${game}: the person never moved`);
  });
}

test("a person plays Connect Four counting columns from 1, typing or clicking the marked cells", async ({ page, base }) => {
  const id = await startHumanGame(page, base, "connect4");
  let typed = false;
  while (await myTurn(page)) {
    const game = (await json(base, `/api/games/${id}`)).body;
    const view = game.views.at(-1);
    // The columns open to the person, counted from the moves alone (a column holds
    // `height` discs): the page marks the cell a disc would land on in each of them.
    const discs = Array(view.width).fill(0);
    for (const move of game.moves) discs[Number(move)] += 1;
    const open = [...discs.keys()].filter(x => discs[x] < view.height);
    await hintsAre(page, view, open.map(String), "the marked columns are the open ones");
    const landing = await page.$$eval("svg g.cell", cells => cells.filter(c => c.querySelector("circle.hint")).map(c => [Number(c.dataset.x), Number(c.dataset.y)]));
    for (const [x, y] of landing) assert.equal(y, view.height - 1 - discs[x], `column ${x + 1}: the mark is where the disc lands`);
    const before = await page.textContent("#ply-label");
    if (!typed) {
      // Typed as the labels count: 8 is no column of a 7-wide board, 4 is the fourth.
      await page.fill("#move-text", "8");
      await page.press("#move-text", "Enter");
      let refusal = "";
      await until("the refusal", async () => /Refused/.test(refusal = await page.textContent("#message")), 10000);
      assert.match(refusal, /"8" is not a column: type a column number from 1 to 7/);
      await page.fill("#move-text", "4");
      await page.press("#move-text", "Enter");
      let message = "";
      await until("the move played", async () => /^played/.test(message = await page.textContent("#message")), 10000);
      assert.equal(message, "played column 4");
      await page.screenshot({ path: join(shots, "play-connect4-typed.png"), fullPage: true });
      typed = true;
    } else {
      const [x, y] = landing[0];
      await page.click(`svg g.cell[data-x="${x}"][data-y="${y}"]`);
      let message = "";
      await until("the move played", async () => /^played|Refused/.test(message = await page.textContent("#message")) &&
        (await page.textContent("#ply-label")) !== before, 30000);
      assert.match(message, /^played column \d+$/);
      if (game.moves.length === 4) await page.screenshot({ path: join(shots, "play-connect4.png"), fullPage: true });
    }
  }
  const game = (await json(base, `/api/games/${id}`)).body;
  assert.equal(game.moves[0], "3", "column 4 is the notation's 3");
  assert.equal(game.moves_shown[0], "column 4");
  await page.waitForSelector("#result:not([hidden])");
  assert.match(await page.textContent("#no-input-0"), /A person plays this side: nothing is written to them/);
});

test("a person plays Legions by clicking provinces into orders", async ({ page, base }) => {
  const id = await startHumanGame(page, base, "legions", { size: "5" });
  let turns = 0;
  while (await myTurn(page)) {
    const before = await page.textContent("#ply-label");
    const view = (await json(base, `/api/games/${id}`)).body.views.at(-1);
    // The provinces an order may go to, and after an order, those it opens (the rules'
    // answer through the API).
    await hintsAre(page, view, view.legal, "the provinces open to the first order");
    // Two orders: one legion to (1, 0) twice, one to (0, 1).
    await page.click('svg g.cell[data-x="1"][data-y="0"]');
    const after = (await json(base, `/api/games/${id}/choices?partial=${encodeURIComponent("1 0 1")}`)).body.choices;
    await hintsAre(page, view, after, "the provinces open after the first order");
    await page.click('svg g.cell[data-x="1"][data-y="0"]');
    await page.click('svg g.cell[data-x="0"][data-y="1"]');
    assert.equal(await page.textContent("#orders"), "1 0 2; 0 1 1");
    if (turns === 0) await page.screenshot({ path: join(shots, "play-legions.png"), fullPage: true });
    await page.click("#send-orders");
    await until("the orders played", async () => (await page.textContent("#ply-label")) !== before, 30000);
    turns += 1;
    assert.ok(turns <= 13, "a 5x5 game lasts 25 turns");
  }
  await page.waitForSelector("#result:not([hidden])");
  assert.ok(turns >= 1);
});

test("a person plays Nupud: the set-up by clicking the home rank, then a piece and its square by clicking", async ({ page, base }) => {
  const id = await startHumanGame(page, base, "nupud");
  await myTurn(page);
  // The home rank is marked; a click off it is refused with the reason.
  assert.equal(await page.locator("svg circle.hint").count(), 6, "six squares of the home rank are marked");
  await page.click('svg g.cell[data-x="0"][data-y="0"]');
  assert.match(await page.textContent("#message"), /Refused: a6 is not on your home rank/);
  // A typed set-up still works, and a wrong one is refused.
  await page.fill("#move-text", "443211");
  await page.press("#move-text", "Enter");
  let refusal = "";
  await until("the set-up refused", async () => /Refused/.test(refusal = await page.textContent("#message")), 10000);
  assert.match(refusal, /cannot be played/);
  // The 4 on b1, the 3 on a1, the 2 on f1: the 1s take c1, d1 and e1. A second click on
  // a square takes its piece back.
  await page.click('svg g.cell[data-x="1"][data-y="5"]');
  assert.match(await page.textContent("#message"), /Set-up so far: b1 4; next, your 3/);
  await page.click('svg g.cell[data-x="0"][data-y="5"]');
  await page.click('svg g.cell[data-x="0"][data-y="5"]');
  assert.match(await page.textContent("#message"), /Set-up so far: b1 4; next, your 3/);
  await page.click('svg g.cell[data-x="0"][data-y="5"]');
  await page.screenshot({ path: join(shots, "play-nupud-setup.png"), fullPage: true });
  await page.click('svg g.cell[data-x="5"][data-y="5"]');
  await until("the set-up accepted", async () => /^played 341112/.test(await page.textContent("#message")), 10000);
  let moves = 0;
  while (await myTurn(page)) {
    const game = (await json(base, `/api/games/${id}`)).body;
    const view = game.views[game.views.length - 1];
    const before = await page.textContent("#ply-label");
    // The view lists the legal moves; a picked piece marks where it may go, and a click
    // on a marked square plays.
    assert.ok(view.legal.length > 0, "the legal moves are in the view");
    const at = name => view.cells.findIndex(c => c.name === name);
    const move = view.legal[moves % view.legal.length];
    const from = view.cells.find(c => move.startsWith(c.name)).name;
    const to = move.slice(from.length);
    await page.click(`svg g.cell[data-x="${at(from) % view.width}"][data-y="${Math.floor(at(from) / view.width)}"]`);
    assert.equal(await page.locator("svg circle.hint").count(), view.legal.filter(m => m.startsWith(from)).length, "hints for the picked piece");
    if (moves === 0) await page.screenshot({ path: join(shots, "play-nupud-hints.png"), fullPage: true });
    await page.click(`svg g.cell[data-x="${at(to) % view.width}"][data-y="${Math.floor(at(to) / view.width)}"]`);
    // Kept as read: the opponent's answer may replace the message right after.
    let answer = "";
    await until("an answer", async () => /^(played|Refused)/.test(answer = await page.textContent("#message")), 10000);
    const played = answer.startsWith("played");
    assert.ok(played, "some piece could move");
    await until("the move shown", async () => (await page.textContent("#ply-label")) !== before, 30000);
    moves += 1;
    if (moves === 1) await page.screenshot({ path: join(shots, "play-nupud.png"), fullPage: true });
    assert.ok(moves < 40);
  }
  await page.waitForSelector("#result:not([hidden])");
});

test("a person plays chess: a piece, then its square, by clicking; SAN typed works too", async ({ page, base }) => {
  const id = await startHumanGame(page, base, "chess");
  let moves = 0;
  while (moves < 6 && (await myTurn(page))) {
    const game = (await json(base, `/api/games/${id}`)).body;
    const view = game.views[game.views.length - 1];
    assert.equal(view.input, "from-to");
    const before = await page.textContent("#ply-label");
    const at = name => view.cells.findIndex(c => c.name === name);
    const square = name => `svg g.cell[data-x="${at(name) % view.width}"][data-y="${Math.floor(at(name) / view.width)}"]`;
    if (moves === 0) {
      // The first move typed as people write it (SAN): the king's knight out.
      await page.fill("#move-text", view.to_move === 0 ? "Nf3" : "Nf6");
      await page.press("#move-text", "Enter");
      await until("the typed move shown", async () => (await page.textContent("#ply-label")) !== before, 30000);
      moves += 1;
      continue;
    }
    // A legal move in UCI: its from square, its to square (a promotion's piece last).
    const move = view.legal[(moves * 7) % view.legal.length];
    const [from, to] = [move.slice(0, 2), move.slice(2, 4)];
    await page.click(square(from));
    const targets = new Set(view.legal.filter(m => m.startsWith(from)).map(m => m.slice(2, 4)));
    assert.equal(await page.locator("svg circle.hint").count(), targets.size, "hints for the picked piece");
    if (moves === 1) await page.screenshot({ path: join(shots, "play-chess-hints.png"), fullPage: true });
    await page.click(square(to));
    let answer = "";
    await until("an answer", async () => /^(played|Refused)/.test(answer = await page.textContent("#message")), 10000);
    assert.ok(answer.startsWith("played"), answer);
    await until("the move shown", async () => (await page.textContent("#ply-label")) !== before, 30000);
    moves += 1;
  }
  await page.screenshot({ path: join(shots, "play-chess.png"), fullPage: true });
  assert.ok(moves === 6 || (await page.isVisible("#result")), "six moves by clicking, or the game is over");
});

test("a C source bot uploads, compiles in the sandbox and passes the entry check; a compile error is shown; a project-protocol bot gets the doctor's report", async ({ page, base }) => {
  const work = mkdtempSync(join(tmpdir(), "arbiter-upload-"));
  const good = join(root, "crates/web/tests/data/greedy_pahtum.c");
  const bad = join(work, "broken.c");
  writeFileSync(bad, "#include <stdio.h>\nint main(void) { printf(\"hi\") return 0; }\n");
  await page.goto(base + "/submit");
  await page.fill("#token", token);
  await page.fill("#name", "student-c");
  await page.selectOption("#game", "pahtum");
  await page.selectOption("#protocol", "pahtum");
  await page.setInputFiles("#files", good);
  await page.click("#upload");
  await page.waitForSelector("#outcome[data-state=done]", { timeout: 120000 });
  assert.match(await page.textContent("#outcome-line"), /Compiled and registered: student-c version 1/);
  assert.match(await page.textContent("#entry-check"), /passed/i);
  await page.waitForSelector('#bots tr[data-bot="student-c"]');
  await page.screenshot({ path: join(shots, "submit-ok.png"), fullPage: true });
  // A broken source: the compiler's error comes back and nothing is registered.
  await page.fill("#name", "student-broken");
  await page.setInputFiles("#files", bad);
  await page.click("#upload");
  await until("the compile error", async () => /fail/i.test(await page.textContent("#message")), 120000);
  assert.match(await page.textContent("#compile-log"), /error/);
  assert.equal(await page.locator('#bots tr[data-bot="student-broken"]').count(), 0);
  await page.screenshot({ path: join(shots, "submit-compile-error.png"), fullPage: true });
  // A bot of the project's protocol gets the doctor's report: a chatty one here.
  const chatty = join(work, "chatty.py");
  writeFileSync(chatty, "import sys\nfor line in sys.stdin:\n    w = line.split()\n    if w[0] == 'arbiter':\n        print('ready', flush=True)\n" +
    "    elif w[0] == 'legal':\n        legal = w[1:]\n    elif w[0] == 'go':\n        print('thinking', flush=True)\n" +
    "        print('move ' + legal[0], flush=True)\n    elif w[0] == 'quit':\n        break\n");
  await page.fill("#name", "student-chatty");
  await page.selectOption("#protocol", "arbiter");
  await page.setInputFiles("#files", chatty);
  await page.click("#upload");
  await page.waitForSelector("#outcome[data-state=done]", { timeout: 120000 });
  await until("the doctor's report", async () => /Doctor:/.test(await page.textContent("#doctor")), 120000);
  assert.match(await page.textContent("#doctor"), /Doctor: \d+ problem\(s\)/);
  assert.match(await page.textContent("#doctor"), /writes to stdout besides its answers \(as side 0\)/);
  assert.match(await page.textContent("#doctor pre"), /< thinking/);
  await page.screenshot({ path: join(shots, "submit-doctor.png"), fullPage: true });
  // Its versions are listed with their upload times.
  await page.click('#bots tr[data-bot="student-c"] a.history');
  await page.waitForSelector("#history table");
  assert.match(await page.textContent("#history"), /Versions of student-c/);
  // The registered bot is offered on the testing ground.
  const bots = await json(base, "/api/bots?game=pahtum");
  assert.ok(bots.body.some(b => b.name === "student-c"));
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------
// The class arena: entrants with their own tokens, a ladder, the bot and entrant pages,
// and a turn's input replayed on the command line.

/** A bot of the project protocol whose k-th answer is the (k × step)-th legal move: its
 *  answers depend on its whole session, and it logs each turn on stderr. */
const arenaBot = step => `import sys
legal, k = [], 0
for line in sys.stdin:
    word, _, rest = line.rstrip("\\n").partition(" ")
    if word == "arbiter":
        print("ready", flush=True)
    elif word == "legal":
        legal = rest.split(" ")
    elif word == "go":
        print("turn %d: %d legal moves" % (k, len(legal)), file=sys.stderr, flush=True)
        print("move " + legal[(k * ${step}) % len(legal)], flush=True)
        k += 1
    elif word == "quit":
        break
`;
const arena = { tokens: {}, ladder: null, game: null };

/** The organiser starts a Connect Four ladder on the ladders page, with `random` and
 *  `greedy` as bosses; resolves to its id. */
async function startLadder(page, base) {
  await useToken(page, base, token);
  await page.goto(base + "/ladders");
  await page.waitForSelector("[data-organiser]:not([hidden]) #start-ladder");
  await page.selectOption("#game", "connect4");
  for (const boss of ["random", "greedy", "medium", "strong", "perfect"]) {
    const box = page.locator(`#bosses input[value="${boss}"]`);
    if (await box.count()) await box.setChecked(boss === "random" || boss === "greedy");
  }
  await page.click("#start-ladder");
  await page.waitForURL(/\/ladders\/\d+$/);
  return page.url().split("/").pop();
}

async function useToken(page, base, value) {
  await page.goto(base + "/entrants");
  await page.evaluate(t => localStorage.setItem("arbiter-token", t), value);
}

test("the organiser lets two entrants in; each uploads with their own token and cannot touch the other's bot", async ({ page, base }) => {
  await page.goto(base + "/entrants");
  await page.waitForSelector("#whoami:not(:empty)");
  await page.fill("#token", token);
  await page.click("#use-token");
  await page.waitForSelector("#organiser:not([hidden])");
  for (const name of ["alice", "bob"]) {
    await page.fill("#names", name);
    await page.click("#add-button");
    await page.waitForSelector(`#tokens tr[data-name="${name}"]`);
    arena.tokens[name] = (await page.textContent(`#tokens tr[data-name="${name}"] td.token`)).trim();
    await page.waitForSelector(`#entrants tr[data-name="${name}"]`);
  }
  assert.notEqual(arena.tokens.alice, arena.tokens.bob);
  // A refused name is said as such; the sheet keeps the tokens made, no stale line.
  await page.fill("#names", "alice");
  await page.click("#add-button");
  await page.waitForSelector("#add-message.error");
  assert.match(await page.textContent("#add-message"), /Nobody was let in: already entrants: alice/);
  assert.equal(await page.locator("#tokens tbody tr").count(), 2);
  await page.screenshot({ path: join(shots, "entrants.png"), fullPage: true });
  for (const [name, bot, step] of [["alice", "alice-bot", 1], ["bob", "bob-bot", 2]]) {
    await useToken(page, base, arena.tokens[name]);
    await page.goto(base + "/submit");
    await page.fill("#name", bot);
    await page.selectOption("#game", "connect4");
    await page.selectOption("#protocol", "arbiter");
    await page.setInputFiles("#files", { name: "main.py", mimeType: "text/x-python", buffer: Buffer.from(arenaBot(step)) });
    await page.click("#upload");
    await until(`${bot}'s upload`, async () => /Compiled|error|fail|refused/i.test(await page.textContent("#outcome-line") + await page.textContent("#message")), 120000);
    await page.waitForSelector("#outcome[data-state=done]", { timeout: 120000 });
    assert.match(await page.textContent("#outcome-line"), new RegExp(`Compiled and registered: ${bot} version 1`));
  }
  // Alice, with her token, cannot upload a version of Bob's bot: one clear line, nothing stored.
  await useToken(page, base, arena.tokens.alice);
  await page.goto(base + "/submit");
  await page.fill("#name", "bob-bot");
  await page.selectOption("#game", "connect4");
  await page.selectOption("#protocol", "arbiter");
  await page.setInputFiles("#files", { name: "main.py", mimeType: "text/x-python", buffer: Buffer.from(arenaBot(3)) });
  await page.click("#upload");
  await page.waitForSelector("#message.error");
  assert.match(await page.textContent("#message"), /belongs to another entrant/);
  const versions = await json(base, "/api/submissions/connect4/bob-bot");
  assert.equal(versions.body.length, 1, "Bob's bot still has one version");
  await page.screenshot({ path: join(shots, "submit-refused-entrant.png"), fullPage: true });
});

test("a ladder places both bots and its ratings move as games finish; a bot page charts its rating", async ({ page, base }) => {
  arena.ladder = await startLadder(page, base);
  await page.waitForSelector('#standings tr[data-bot="alice-bot"]');
  await page.waitForSelector('#standings tr[data-bot="bob-bot"]');
  const rating = () => page.textContent('#standings tr[data-bot="alice-bot"] td.rating');
  const first = await rating();
  await until("alice-bot's rating to move", async () => (await rating()) !== first, 120000);
  const moved = await rating();
  await until("it to move again", async () => (await rating()) !== moved, 120000);
  await page.screenshot({ path: join(shots, "ladder.png"), fullPage: true });
  await page.click('#standings tr[data-bot="alice-bot"] a');
  await page.waitForURL(/\/bots\/connect4\/alice-bot$/);
  await page.waitForSelector("svg.chart polyline");
  const points = (await page.getAttribute("svg.chart polyline", "points")).trim().split(" ").length;
  assert.ok(points >= 2, "the chart has a point per game");
  await page.screenshot({ path: join(shots, "bot.png"), fullPage: true });
  await page.goto(base + "/entrants/alice");
  await page.waitForSelector("#bots tbody tr");
  assert.match(await page.textContent("#bots"), /alice-bot/);
  await page.screenshot({ path: join(shots, "entrant.png"), fullPage: true });
});

test("a turn's input is shown to copy, and arbiter replay --turn answers it as the game did", async ({ page, base }) => {
  const games = (await json(base, `/api/ladders/${arena.ladder}/games`)).body;
  const game = games.find(g => g.bots.includes("alice-bot"));
  assert.ok(game, "a ladder game of alice-bot");
  arena.game = game.id;
  const side = game.bots.indexOf("alice-bot");
  // Anyone sees the board, not Alice's log; Alice sees her log and the input.
  await useToken(page, base, "");
  await page.goto(`${base}/games/${game.id}`);
  await page.waitForSelector(`#input-box-${side}:not([hidden])`);
  assert.match(await page.textContent(`#log-${side}`), /for its author/);
  await useToken(page, base, arena.tokens.alice);
  await page.goto(`${base}/games/${game.id}`);
  await page.waitForFunction(s => /legal moves/.test(document.querySelector("#log-" + s).textContent), side);
  await page.click(`#input-box-${side} summary`);
  const shown = await page.textContent(`#input-${side}`);
  assert.match(shown, /^.*position [^\n]+\nlegal [^\n]+\ntime [^\n]*\ngo\n$/s);
  const hint = await page.textContent(`#replay-${side}`);
  const turn = Number(/--turn (\d+)/.exec(hint)[1]);
  await page.screenshot({ path: join(shots, "game-debug-input.png"), fullPage: true });
  // The game as the viewer's download gives it, then the same bot, locally.
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
  const work = mkdtempSync(join(tmpdir(), "arbiter-replay-"));
  const file = join(work, "game.json");
  await download.saveAs(file);
  const doc = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(doc.turns[turn - 1].input, shown, "the download keeps the input shown");
  const bot = join(work, "alice-bot");
  mkdirSync(bot);
  writeFileSync(join(bot, "main.py"), arenaBot(1));
  writeFileSync(join(bot, "bot.toml"), 'name = "alice-bot"\ngame = "any"\nprotocol = "arbiter"\ncommand = ["python3", "./main.py"]\n');
  const out = execFileSync(bin, ["replay", file, "--turn", String(turn), "--bot", bot, "--no-sandbox"], { encoding: "utf8" });
  assert.match(out, /\(the same\)/, out);
  assert.match(out, new RegExp(`answer: ${doc.turns[turn - 1].text}\\n`), out);
  rmSync(work, { recursive: true, force: true });
  // The ladder rests for the tests after this one.
  assert.equal((await post(base, `/api/ladders/${arena.ladder}/freeze`, { frozen: true }, true)).status, 200);
});

test("an unknown address gets a page, and the site has an icon", async ({ page, base }) => {
  const response = await page.goto(base + "/no/such/page");
  assert.equal(response.status(), 404);
  assert.equal(await page.textContent("h1"), "Page not found");
  await page.screenshot({ path: join(shots, "not-found.png"), fullPage: true });
  const icon = await fetch(base + "/favicon.ico");
  assert.equal(icon.status, 200);
  assert.match(icon.headers.get("content-type"), /svg/);
  const api = await fetch(base + "/api/nothing");
  assert.equal(api.status, 404);
  assert.ok((await api.json()).error, "the API answers JSON");
});

// ---------------------------------------------------------------------------------------
// The class day: the organiser lets a class of 30 in at once; students upload the starter
// kits as they come (single files in five languages, zips of a kit's folder) with the
// form's defaults; a bot that answers with a sentence is named within seconds; a bot that
// crashes every ladder game is backed off; the ladder ranks the rest. Screenshots of each
// page a student and a spectator see.

const classDay = { tokens: {}, ladder: null };

/** A zip of a kit's folder, as a student makes one (Python's zipfile, on every machine
 *  that runs the Python bots). */
function zipFolder(folder) {
  const out = folder + ".zip";
  execFileSync("python3", ["-m", "zipfile", "-c", out, folder]);
  return out;
}

/** A bot of the project's protocol in Python whose answer to `go` is `go`. */
const pythonBot = go => `# arbiter-interface: arbiter
import sys, random
legal, time = [], 0
for line in sys.stdin:
    w = line.split()
    if not w: continue
    if w[0] == "arbiter": print("ready", flush=True)
    elif w[0] == "legal": legal = w[1:]
    elif w[0] == "time": time = int(w[1]) if w[1] != "-" else 0
    elif w[0] == "go": ${go}
    elif w[0] == "quit": break
`;

/** Uploads through the submit page as `student` with the form's defaults (only the name
 *  and the game chosen); resolves once the check is done, with the seconds it took. */
async function classUpload(page, base, student, name, files) {
  await useToken(page, base, classDay.tokens[student]);
  await page.goto(base + "/submit");
  await page.waitForFunction(s => document.getElementById("signed-in").textContent === s, student);
  await page.fill("#name", name);
  await page.selectOption("#game", "connect4");
  assert.equal(await page.inputValue("#protocol"), "auto", "the interface's default reads the kit");
  await page.setInputFiles("#files", files);
  const began = Date.now();
  await page.click("#upload");
  await page.waitForSelector("#outcome[data-state=done], #outcome[data-state=failed]", { timeout: 180000 });
  return (Date.now() - began) / 1000;
}

test("the class day: thirty entrants at once, kit uploads in five languages, a sentence named, a crasher backed off, the ladder ranks the rest", async ({ page, base }) => {
  // The organiser lets the class in at once and gets the token sheet.
  await useToken(page, base, token);
  await page.goto(base + "/entrants");
  await page.waitForSelector("#organiser:not([hidden])");
  const names = Array.from({ length: 30 }, (_, i) => `class-${String(i + 1).padStart(2, "0")}`);
  await page.fill("#names", names.join("\n"));
  await page.click("#add-button");
  await until("the token sheet", async () => (await page.locator("#tokens tbody tr").count()) === 30);
  for (const name of names) classDay.tokens[name] = (await page.textContent(`#tokens tr[data-name="${name}"] td.token`)).trim();
  assert.equal(new Set(Object.values(classDay.tokens)).size, 30, "thirty tokens, each its own");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
  const work = mkdtempSync(join(tmpdir(), "arbiter-class-"));
  await download.saveAs(join(work, "tokens.csv"));
  const sheet = readFileSync(join(work, "tokens.csv"), "utf8").trim().split("\n");
  assert.equal(sheet.length, 31, "a header and thirty lines");
  assert.equal(sheet[1], `class-01,${classDay.tokens["class-01"]}`);
  await page.screenshot({ path: join(shots, "class-tokens.png"), fullPage: true });
  await page.emulateMedia({ media: "print" });
  await page.screenshot({ path: join(shots, "class-tokens-print.png"), fullPage: true });
  await page.emulateMedia({ media: "screen" });

  // Students upload the kits as `arbiter new` writes them, with the form's defaults.
  const kits = {};
  for (const lang of ["python", "c", "cpp", "rust", "javascript"]) {
    kits[lang] = join(work, `kit-${lang}`);
    execFileSync(bin, ["new", "connect4", lang, kits[lang]]);
  }
  const program = { python: "bot.py", c: "bot.c", cpp: "bot.cpp", rust: "bot.rs", javascript: "bot.js" };
  const uploads = [
    ["class-01", "c4-python", join(kits.python, program.python)],
    ["class-02", "c4-c", join(kits.c, program.c)],
    ["class-03", "c4-cpp", join(kits.cpp, program.cpp)],
    ["class-04", "c4-rust", join(kits.rust, program.rust)],
    ["class-05", "c4-js", join(kits.javascript, program.javascript)],
    ["class-06", "c4-python-zip", zipFolder(kits.python)],
    ["class-07", "c4-c-zip", zipFolder(kits.c)],
  ];
  for (const [student, name, file] of uploads) {
    await classUpload(page, base, student, name, file);
    assert.match(await page.textContent("#outcome-line"), new RegExp(`Compiled and registered: ${name} version 1 .*interface arbiter`), name);
    assert.match(await page.textContent("#entry-check"), /Entry check: passed/, name);
    if (name === "c4-js") await page.screenshot({ path: join(shots, "class-submit.png"), fullPage: true });
  }
  // A bot that answers with a sentence: named as a wrong answer within 10 s of the upload.
  const sentence = join(work, "talker.py");
  writeFileSync(sentence, pythonBot(`print("I think column 2 is nice :)", flush=True)`));
  const took = await classUpload(page, base, "class-08", "talker", sentence);
  assert.ok(took < 10, `named after ${took} s`);
  assert.match(await page.textContent("#doctor"), /answer in the wrong format \(as side 0\): it answered "I think column 2 is nice :\)" to "go"/);
  assert.match(await page.textContent("#progress"), /side 0: > go\nside 0: < I think column 2 is nice :\)/);
  assert.match(await page.textContent("#entry-check"), /This version stays out of the ladders/);
  await page.screenshot({ path: join(shots, "class-submit-sentence.png"), fullPage: true });
  // A bot that crashes at once (kept out by its entry check), and one that crashes in every
  // ladder game (Connect Four gives 2 minutes of CPU time there, seconds in the checks).
  const crasher = join(work, "crash.py");
  writeFileSync(crasher, pythonBot("sys.exit(3)"));
  await classUpload(page, base, "class-09", "crasher", crasher);
  assert.match(await page.textContent("#entry-check"), /failed: the doctor found crash/);
  const ladderCrasher = join(work, "ladder_crash.py");
  writeFileSync(ladderCrasher, pythonBot(`sys.exit(3) if time > 10000 else print("move " + random.choice(legal), flush=True)`));
  await classUpload(page, base, "class-10", "crashes-later", ladderCrasher);
  assert.match(await page.textContent("#entry-check"), /passed/);

  // The organiser starts the class's ladder.
  classDay.ladder = await startLadder(page, base);
  const kitBots = uploads.map(([, name]) => name);
  const standing = async () => (await json(base, `/api/ladders/${classDay.ladder}`)).body;
  await until("40 games, every kit bot placed by two", async () => {
    const ladder = await standing();
    return ladder.games >= 40 && kitBots.every(name => ladder.standings.some(r => r.bot === name && r.games >= 2));
  }, 240000);
  await post(base, `/api/ladders/${classDay.ladder}/freeze`, { frozen: true }, true);
  const final = await standing();
  const bots = final.standings.filter(r => !r.boss).map(r => r.bot);
  for (const name of kitBots) assert.ok(bots.includes(name), `${name} is ranked`);
  assert.ok(!bots.includes("talker") && !bots.includes("crasher"), "versions that failed their check stay out");
  // The crasher of ladder games is backed off: a small share of the games, paused.
  let games = [];
  for (let before = null; ;) {
    const page = (await json(base, `/api/ladders/${classDay.ladder}/games?limit=100` + (before ? `&before=${before}` : ""))).body;
    if (!page.length) break;
    games = games.concat(page);
    before = page[page.length - 1].number;
  }
  const crashes = games.filter(g => g.bots.includes("crashes-later")).length;
  assert.ok(games.length >= 40 && crashes <= 3, `the crasher played ${crashes} of ${games.length}`);
  assert.ok(final.standings.find(r => r.bot === "crashes-later").paused, "it is paused");

  // What a student sees: her paused bot and her page; what a spectator sees.
  await useToken(page, base, classDay.tokens["class-10"]);
  await page.goto(`${base}/bots/connect4/crashes-later`);
  await page.waitForSelector(".paused-note");
  assert.match(await page.textContent(".paused-note"), /Paused in this ladder: its last 3 games all ended by its fault \(crash: exited with status 3 before answering\)/);
  await page.screenshot({ path: join(shots, "class-bot-paused.png"), fullPage: true });
  await page.goto(`${base}/entrants/class-10`);
  await page.waitForSelector("#bots .paused-note");
  await page.screenshot({ path: join(shots, "class-entrant.png"), fullPage: true });
  await useToken(page, base, classDay.tokens["class-01"]);
  await page.goto(`${base}/bots/connect4/c4-python`);
  await page.waitForSelector("svg.chart polyline");
  await page.screenshot({ path: join(shots, "class-bot.png"), fullPage: true });
  await useToken(page, base, "");
  await page.goto(`${base}/ladders/${classDay.ladder}`);
  await page.waitForSelector(`#standings tr[data-bot="c4-rust"]`);
  assert.equal(await page.locator("#freeze:visible").count(), 0, "no organiser's button for a spectator");
  await page.screenshot({ path: join(shots, "class-ladder.png"), fullPage: true });
  await page.click("#older");
  await page.waitForSelector("#newer:not([hidden])");
  await page.goto(base + "/");
  await page.waitForSelector("#games");
  const front = (await json(base, "/api/games")).body;
  assert.ok([...front.running, ...front.finished].every(g => !g.origin || g.origin.kind !== "ladder"), "no ladder game on the front page");
  await page.screenshot({ path: join(shots, "class-front.png"), fullPage: true });
  rmSync(work, { recursive: true, force: true });
});

test("every page fits a phone's width", async ({ page, base }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const tournaments = (await json(base, "/api/tournaments")).body;
  // Each page, and what shows that its data is in.
  const pages = [["tournaments", "/", "#games tbody tr"], ["ladders", "/ladders", "#ladders tbody tr"],
    ["ladder", `/ladders/${arena.ladder}`, "#standings tbody tr"], ["bot", "/bots/connect4/alice-bot", "svg.chart"],
    ["entrants", "/entrants", "#whoami:not(:empty)"], ["entrant", "/entrants/alice", "#bots tbody tr"],
    ["testing-ground", "/test", "#bot0 option"], ["play", "/play", "#bot option"], ["submit", "/submit", "#bots tbody tr"],
    ["game", `/games/${arena.game}`, "#board svg"], ["not-found", "/no/such/page", "h1"]];
  if (tournaments.length) pages.push(["tournament", `/tournaments/${tournaments[0].id}`, "table.standings"]);
  for (const [name, path, ready] of pages) {
    await page.goto(base + path);
    await page.waitForSelector(ready, { state: "attached" });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${path} is ${overflow} px wider than a phone`);
    await page.screenshot({ path: join(shots, `phone-${name}.png`), fullPage: true });
  }
});

// ---------------------------------------------------------------------------------------

const data = mkdtempSync(join(tmpdir(), "arbiter-browser-"));
const server = await startServer(data);
const browser = await chromium.launch({
  executablePath: browserPath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
});
let failed = 0;
try {
  for (const { name, fn } of tests) {
    if (only && !only.some(o => name.includes(o))) continue;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", error => errors.push(error.message));
    // What the Content-Security-Policy blocks shows as a console error, not a page error.
    page.on("console", message => {
      if (message.type() === "error" && message.text().includes("Content Security Policy")) errors.push(message.text());
    });
    const began = Date.now();
    try {
      await fn({ page, base: server.base });
      assert.deepEqual(errors, [], "no script error on the page");
      console.log(`ok - ${name} (${Date.now() - began} ms)`);
    } catch (error) {
      failed += 1;
      console.log(`not ok - ${name}\n  ${String(error.stack || error).split("\n").join("\n  ")}`);
      await page.screenshot({ path: join(data, "failure.png"), fullPage: true }).catch(() => {});
      console.log(`  page: ${page.url()}  (screenshot: ${join(data, "failure.png")})`);
    }
    await context.close();
  }
} finally {
  await browser.close();
  server.child.kill("SIGINT");
}
if (failed) {
  console.log(`${failed} browser test(s) failed; server output:\n${server.output()}`);
  process.exit(1);
}
rmSync(data, { recursive: true, force: true });
console.log("all browser tests passed");
