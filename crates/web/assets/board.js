// board.js: draws a board view (the JSON of the web crate's `view::BoardView`) as an
// inline SVG, for the game viewer and human play, and turns clicks on cells into moves.
// Plain browser JavaScript, an ES module with no dependencies and no build step:
//
//   import { renderBoard, clickToMove } from "/assets/board.js";
//   const state = {};
//   renderBoard(div, view, { onCell: (cell) => { const r = clickToMove(view, state, cell); ... } });
//
// The view carries everything game-specific (cell names in move notation, owners, labels,
// highlights, the input mode), so this file knows how each game looks, not its rules.

const SVG = "http://www.w3.org/2000/svg";

// Colours per game, side 0 first. Connect Four keeps the rules' colours (the first player
// is blue, the second red) so that the status line ("Blue to move") matches the discs.
const PIECE_COLOURS = {
  gomoku: ["#16181d", "#f7f7f2"],
  connect4: ["#2563eb", "#dc2626"],
  pahtum: ["#c2410c", "#1d4ed8"],
  legions: ["#3b82f6", "#ef4444"],
  nupud: ["#fbfaf5", "#22252b"],
};
const LAST_COLOUR = "#f59e0b";
const WIN_COLOUR = "#16a34a";
const SELECT_COLOUR = "#10b981";
let nextId = 0; // makes the ids of each board's patterns unique on the page
const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";

// Creates an SVG element with attributes and appends it to `parent` when given.
function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, content, attrs) {
  const node = el("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", "font-family": FONT, ...attrs }, parent);
  node.textContent = content;
  return node;
}

function hasCell(list, x, y) {
  return (list || []).some((p) => p[0] === x && p[1] === y);
}

// A five-pointed star centred on (cx, cy), for Legions' cities.
function starPath(cx, cy, r) {
  const points = [];
  for (let i = 0; i < 10; i++) {
    const radius = i % 2 === 0 ? r : r * 0.45;
    const angle = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(2)},${(cy + radius * Math.sin(angle)).toFixed(2)}`);
  }
  return `M${points.join("L")}Z`;
}

// Draws `view` as an SVG inside `container`, replacing its content, and returns the svg.
// options:
//   onCell(cell, x, y)  called when a cell is clicked (cells get a pointer cursor)
//   selected: [x, y]     a cell to outline (the first click of a from-to move)
//   orders: [{name, count}]  Legions orders being composed, shown as badges
//   maxSize              the largest width or height in pixels (default 600)
//   colours: [c0, c1]    piece colours instead of the game's defaults
export function renderBoard(container, view, options = {}) {
  const w = view.width;
  const h = view.height;
  const avail = Math.max(160, Math.min(options.maxSize || 600, container.clientWidth || 600));
  const band = Math.max(w, h) > 12 ? 18 : 24; // room for the labels
  const cell = Math.max(8, Math.min(72, Math.floor(Math.min((avail - band - 6) / w, (avail - band - 6) / h))));
  const ox = band;
  const oy = band;
  const width = ox + w * cell + 6;
  const height = oy + h * cell + 6;
  const colours = options.colours || PIECE_COLOURS[view.game] || ["#333", "#ddd"];

  const svg = el("svg", {
    xmlns: SVG,
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-label": `${view.game} board: ${view.status}`,
    "data-game": view.game,
    class: `board board-${view.game}`,
    style: "max-width:100%;height:auto;user-select:none",
  });
  el("title", {}, svg).textContent = view.status;
  const defs = el("defs", {}, svg);
  const hatchId = `board-hatch-${nextId++}`;
  const hatch = el("pattern", { id: hatchId, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 6, height: 6, fill: "#3f4654" }, hatch);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#6b7280", "stroke-width": 3 }, hatch);

  // Board background and grid, per game.
  const bx = ox;
  const by = oy;
  const bw = w * cell;
  const bh = h * cell;
  if (view.game === "gomoku") {
    el("rect", { x: bx - 2, y: by - 2, width: bw + 4, height: bh + 4, rx: 6, fill: "#deb66a", stroke: "#a77b3a" }, svg);
    // Stones sit on the intersections: the lines join the cell centres.
    const half = cell / 2;
    for (let i = 0; i < w; i++) {
      el("line", { x1: bx + half + i * cell, y1: by + half, x2: bx + half + i * cell, y2: by + bh - half, stroke: "#6b4f24", "stroke-width": 1 }, svg);
    }
    for (let j = 0; j < h; j++) {
      el("line", { x1: bx + half, y1: by + half + j * cell, x2: bx + bw - half, y2: by + half + j * cell, stroke: "#6b4f24", "stroke-width": 1 }, svg);
    }
  } else if (view.game === "connect4") {
    el("rect", { x: bx - 4, y: by - 4, width: bw + 8, height: bh + 8, rx: 10, fill: "#334155" }, svg);
  } else if (view.game === "nupud") {
    el("rect", { x: bx - 3, y: by - 3, width: bw + 6, height: bh + 6, rx: 4, fill: "#7c5a3a" }, svg);
  } else {
    el("rect", { x: bx - 1, y: by - 1, width: bw + 2, height: bh + 2, fill: "#cbd5e1" }, svg);
  }

  // Labels: columns above, rows on the left.
  const fontSize = Math.max(9, Math.min(14, cell * 0.5, band * 0.6));
  view.col_labels.forEach((label, x) => text(svg, bx + x * cell + cell / 2, oy / 2, label, { "font-size": fontSize, fill: "#475569" }));
  view.row_labels.forEach((label, y) => text(svg, ox / 2, by + y * cell + cell / 2, label, { "font-size": fontSize, fill: "#475569" }));

  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const c = view.cells[y * w + x];
      const g = el("g", { class: "cell", "data-name": c.name, "data-x": x, "data-y": y, transform: `translate(${bx + x * cell},${by + y * cell})` }, svg);
      const state = {
        last: hasCell(view.last, x, y),
        winning: hasCell(view.winning, x, y),
        selected: options.selected && options.selected[0] === x && options.selected[1] === y,
      };
      drawCell(g, view, c, x, y, cell, colours, state, hatchId);
      const order = (options.orders || []).find((o) => o.name === c.name);
      if (order) {
        el("circle", { cx: cell * 0.78, cy: cell * 0.22, r: cell * 0.2, fill: "#0f172a" }, g);
        text(g, cell * 0.78, cell * 0.22, order.count, { "font-size": cell * 0.28, fill: "#fff", "font-weight": 700 });
      }
      if (options.onCell) {
        g.style.cursor = "pointer";
        g.addEventListener("click", () => options.onCell(c, x, y));
      }
    }
  }

  container.replaceChildren(svg);
  return svg;
}

// Draws one cell in its group, whose origin is the cell's top-left corner. The first
// shape fills the whole cell so that a click anywhere in it lands on the group.
function drawCell(g, view, c, x, y, s, colours, mark, hatchId) {
  const mid = s / 2;
  const owned = c.owner !== null && c.owner !== undefined;
  switch (view.game) {
    case "gomoku": {
      el("rect", { width: s, height: s, fill: "#000", "fill-opacity": 0 }, g);
      if (owned) {
        el("circle", { cx: mid, cy: mid, r: s * 0.43, fill: colours[c.owner], stroke: c.owner === 1 ? "#2b2b2b" : "#000", "stroke-width": c.owner === 1 ? 1.5 : 1 }, g);
        // A soft highlight gives the stones some depth.
        el("circle", { cx: mid - s * 0.13, cy: mid - s * 0.13, r: s * 0.12, fill: "#fff", "fill-opacity": c.owner === 1 ? 0.6 : 0.18 }, g);
      }
      if (mark.winning) el("circle", { cx: mid, cy: mid, r: s * 0.47, fill: "none", stroke: WIN_COLOUR, "stroke-width": 3 }, g);
      if (mark.last) el("circle", { cx: mid, cy: mid, r: s * 0.12, fill: "#e11d48" }, g);
      break;
    }
    case "connect4": {
      el("rect", { width: s, height: s, fill: "#334155" }, g);
      el("circle", { cx: mid, cy: mid, r: s * 0.4, fill: owned ? colours[c.owner] : "#f1f5f9", stroke: owned ? "#0f172a" : "#1e293b", "stroke-width": 1 }, g);
      if (mark.winning) el("circle", { cx: mid, cy: mid, r: s * 0.28, fill: "none", stroke: "#fff", "stroke-width": 3 }, g);
      if (mark.last) el("circle", { cx: mid, cy: mid, r: s * 0.46, fill: "none", stroke: LAST_COLOUR, "stroke-width": 3 }, g);
      break;
    }
    case "pahtum": {
      el("rect", { x: 0.5, y: 0.5, width: s - 1, height: s - 1, fill: c.blocked ? `url(#${hatchId})` : "#f8f4ea", stroke: "#94a3b8" }, g);
      if (mark.last) el("rect", { x: 2, y: 2, width: s - 4, height: s - 4, fill: "none", stroke: LAST_COLOUR, "stroke-width": 3 }, g);
      if (owned) {
        el("circle", { cx: mid, cy: mid, r: s * 0.36, fill: colours[c.owner] }, g);
        text(g, mid, mid, view.side_names[c.owner], { "font-size": s * 0.4, "font-weight": 700, fill: "#fff" });
      }
      break;
    }
    case "legions": {
      const disconnected = c.connected === false;
      el("rect", {
        x: 0.5,
        y: 0.5,
        width: s - 1,
        height: s - 1,
        fill: owned ? colours[c.owner] : "#f1f5f9",
        "fill-opacity": owned && disconnected ? 0.35 : 1,
        stroke: owned && disconnected ? "#334155" : "#cbd5e1",
        "stroke-dasharray": owned && disconnected ? "3 2" : null,
      }, g);
      if (c.veteran) {
        // Veterans: a double ring and a bold V.
        el("circle", { cx: mid, cy: mid, r: s * 0.36, fill: "none", stroke: "#fff", "stroke-width": Math.max(1, s * 0.05) }, g);
        el("circle", { cx: mid, cy: mid, r: s * 0.25, fill: "none", stroke: "#fff", "stroke-width": Math.max(1, s * 0.05) }, g);
        text(g, mid, mid, "V", { "font-size": s * 0.32, "font-weight": 800, fill: "#fff" });
      }
      if (c.city) el("path", { d: starPath(mid, mid, s * 0.38), fill: "#facc15", stroke: "#713f12", "stroke-width": 1 }, g);
      if (mark.last) el("rect", { x: 1.5, y: 1.5, width: s - 3, height: s - 3, fill: "none", stroke: LAST_COLOUR, "stroke-width": 3 }, g);
      break;
    }
    case "nupud": {
      const light = (x + y) % 2 === 0;
      el("rect", { width: s, height: s, fill: light ? "#f0dcb8" : "#c9a07a" }, g);
      if (mark.last) el("rect", { width: s, height: s, fill: LAST_COLOUR, "fill-opacity": 0.4 }, g);
      if (owned) {
        el("circle", { cx: mid, cy: mid, r: s * 0.38, fill: colours[c.owner], stroke: c.owner === 0 ? "#44403c" : "#000", "stroke-width": 1.5 }, g);
        text(g, mid, mid, c.label || "", { "font-size": s * 0.42, "font-weight": 700, fill: c.owner === 0 ? "#1c1917" : "#f5f5f4" });
      }
      break;
    }
    default: {
      el("rect", { x: 0.5, y: 0.5, width: s - 1, height: s - 1, fill: owned ? colours[c.owner] : "#f8fafc", stroke: "#94a3b8" }, g);
      if (c.label) text(g, mid, mid, c.label, { "font-size": s * 0.4 });
    }
  }
  if (mark.selected) el("rect", { x: 2, y: 2, width: s - 4, height: s - 4, fill: "none", stroke: SELECT_COLOUR, "stroke-width": 4, rx: 3 }, g);
}

// Turns a click on `cell` into what the page should do, by the view's input mode.
// `state` is an object the page keeps between clicks of one move (start with `{}` and
// start afresh after a move is sent). Returns:
//   {move: "B7"}                          a complete move to send ("cell", "column", "from-to")
//   {pending: "c1", selected: [x, y]}     the first square of a from-to move (outline it)
//   {pending: null}                       the selection was cleared (same square again)
//   {orders: "3 6 1; 3 5 2", total: 3}    Legions: the orders so far; the page sends them
//   {}                                    nothing to do (not a move, set-up, game over)
export function clickToMove(view, state, cell) {
  const idx = view.cells.indexOf(cell) >= 0 ? view.cells.indexOf(cell) : view.cells.findIndex((c) => c.name === cell.name);
  const x = idx % view.width;
  const y = Math.floor(idx / view.width);
  switch (view.input) {
    case "cell":
      return cell.owner == null && !cell.blocked ? { move: cell.name } : {};
    case "column":
      // A column is full when its top cell (drawn first) holds a disc.
      return view.cells[x] && view.cells[x].owner == null ? { move: cell.name } : {};
    case "from-to": {
      const own = cell.owner != null && cell.owner === view.to_move;
      if (state.pending && state.pending === cell.name) {
        state.pending = null;
        state.selected = null;
        return { pending: null };
      }
      if (own) {
        // A first click, or a click on another own piece: (re)select it.
        state.pending = cell.name;
        state.selected = [x, y];
        return { pending: cell.name, selected: [x, y] };
      }
      if (!state.pending) return {};
      const move = state.pending + cell.name;
      state.pending = null;
      state.selected = null;
      return { move };
    }
    case "orders": {
      state.orders = state.orders || [];
      const order = state.orders.find((o) => o.name === cell.name);
      if (order) order.count += 1;
      else state.orders.push({ name: cell.name, count: 1 });
      return { orders: ordersText(state), total: state.orders.reduce((sum, o) => sum + o.count, 0) };
    }
    default:
      return {};
  }
}

// The Legions orders in `state` as move text, e.g. "3 6 1; 3 5 2" ("" for none).
export function ordersText(state) {
  return (state.orders || []).map((o) => `${o.name} ${o.count}`).join("; ");
}
