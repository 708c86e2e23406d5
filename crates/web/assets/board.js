// board.js: draws a board view (the JSON of the rules crate's `view::BoardView`) as an
// inline SVG, for the game viewer and human play, and turns clicks on cells into moves.
// Plain browser JavaScript, an ES module with no dependencies and no build step:
//
//   import { renderBoard, clickToMove, renderLegend } from "/assets/board.js";
//   const state = {};
//   renderBoard(div, view, { onCell: (cell) => { const r = clickToMove(view, state, cell); ... } });
//
// The view carries everything game-specific (cell names in move notation, owners, labels,
// marks, highlights, the input mode, and `style`: the grid, the pieces and their colours),
// so this file draws every game the same way and knows none of them by name.

const SVG = "http://www.w3.org/2000/svg";
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
  const style = view.style;
  const colours = options.colours || style.piece_colours;

  const svg = el("svg", {
    xmlns: SVG,
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-label": `${view.game} board: ${view.status}`,
    "data-game": view.game,
    class: `board board-${view.style.grid}`,
    style: "max-width:100%;height:auto;user-select:none",
  });
  el("title", {}, svg).textContent = view.status;
  const defs = el("defs", {}, svg);
  const hatchId = `board-hatch-${nextId++}`;
  const hatch = el("pattern", { id: hatchId, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 6, height: 6, fill: "#3f4654" }, hatch);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#6b7280", "stroke-width": 3 }, hatch);

  // Board background and grid, by the style's grid.
  const bx = ox;
  const by = oy;
  const bw = w * cell;
  const bh = h * cell;
  if (style.grid === "lines") {
    el("rect", { x: bx - 2, y: by - 2, width: bw + 4, height: bh + 4, rx: 6, fill: style.board_colour, stroke: style.line_colour }, svg);
    // Pieces sit on the crossings: the lines join the cell centres.
    const half = cell / 2;
    for (let i = 0; i < w; i++) {
      el("line", { x1: bx + half + i * cell, y1: by + half, x2: bx + half + i * cell, y2: by + bh - half, stroke: style.line_colour, "stroke-width": 1 }, svg);
    }
    for (let j = 0; j < h; j++) {
      el("line", { x1: bx + half, y1: by + half + j * cell, x2: bx + bw - half, y2: by + half + j * cell, stroke: style.line_colour, "stroke-width": 1 }, svg);
    }
  } else if (style.grid === "holes") {
    el("rect", { x: bx - 4, y: by - 4, width: bw + 8, height: bh + 8, rx: 10, fill: style.board_colour }, svg);
  } else if (style.grid === "checkered") {
    el("rect", { x: bx - 3, y: by - 3, width: bw + 6, height: bh + 6, rx: 4, fill: style.line_colour }, svg);
  } else {
    el("rect", { x: bx - 1, y: by - 1, width: bw + 2, height: bh + 2, fill: style.line_colour }, svg);
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

// Draws one cell in its group, whose origin is the cell's top-left corner: the ground
// (by the grid), the piece (by the pieces), the cell's marks, then the highlights. The
// first shape fills the whole cell so that a click anywhere in it lands on the group.
function drawCell(g, view, c, x, y, s, colours, mark, hatchId) {
  const style = view.style;
  const mid = s / 2;
  const owned = c.owner !== null && c.owner !== undefined;
  const tiles = style.pieces === "tiles";
  // The ground.
  if (style.grid === "lines") {
    el("rect", { width: s, height: s, fill: "#000", "fill-opacity": 0 }, g);
  } else if (style.grid === "holes") {
    el("rect", { width: s, height: s, fill: style.board_colour }, g);
    if (!owned) el("circle", { cx: mid, cy: mid, r: s * 0.4, fill: style.line_colour, stroke: "#1e293b", "stroke-width": 1 }, g);
  } else if (style.grid === "checkered") {
    el("rect", { width: s, height: s, fill: (x + y) % 2 === 0 ? style.board_colour : style.line_colour }, g);
  } else {
    const fill = c.blocked ? `url(#${hatchId})` : owned && tiles ? colours[c.owner] : style.board_colour;
    el("rect", {
      x: 0.5, y: 0.5, width: s - 1, height: s - 1, fill,
      "fill-opacity": owned && tiles && c.faded ? 0.35 : 1,
      stroke: owned && tiles && c.faded ? "#334155" : style.line_colour,
      "stroke-dasharray": owned && tiles && c.faded ? "3 2" : null,
    }, g);
  }
  if (c.blocked && style.grid !== "squares") {
    el("rect", { x: 1, y: 1, width: s - 2, height: s - 2, fill: `url(#${hatchId})` }, g);
  }
  if (mark.last && style.grid === "checkered") el("rect", { width: s, height: s, fill: LAST_COLOUR, "fill-opacity": 0.4 }, g);
  if (mark.last && style.grid === "squares") {
    el("rect", { x: 2, y: 2, width: s - 4, height: s - 4, fill: "none", stroke: LAST_COLOUR, "stroke-width": 3 }, g);
  }
  // The piece.
  const textColour = owned ? style.text_colours[c.owner] : "#0f172a";
  // Glyphs: the label is the piece, drawn large in the owner's colour and outlined.
  if (style.pieces === "glyphs") {
    if (owned && c.label) {
      text(g, mid, mid + s * 0.04, c.label, {
        "font-size": s * 0.78, fill: colours[c.owner], stroke: style.text_colours[c.owner], "stroke-width": Math.max(1, s * 0.025),
        "paint-order": "stroke",
      });
    }
  } else if (owned && !tiles) {
    const r = style.pieces === "stones" ? s * 0.43 : s * 0.38;
    el("circle", { cx: mid, cy: mid, r, fill: colours[c.owner], stroke: "#0f172a", "stroke-width": 1, "fill-opacity": c.faded ? 0.45 : 1 }, g);
    // A soft highlight gives stones some depth.
    if (style.pieces === "stones") el("circle", { cx: mid - s * 0.13, cy: mid - s * 0.13, r: s * 0.12, fill: "#fff", "fill-opacity": 0.35 }, g);
  }
  if (c.ring) {
    el("circle", { cx: mid, cy: mid, r: s * 0.36, fill: "none", stroke: textColour, "stroke-width": Math.max(1, s * 0.05) }, g);
    el("circle", { cx: mid, cy: mid, r: s * 0.25, fill: "none", stroke: textColour, "stroke-width": Math.max(1, s * 0.05) }, g);
  }
  if (c.label && style.pieces !== "glyphs") text(g, mid, mid, c.label, { "font-size": s * 0.4, "font-weight": 700, fill: textColour });
  if (c.star) el("path", { d: starPath(mid, mid, s * 0.38), fill: "#facc15", stroke: "#713f12", "stroke-width": 1 }, g);
  if (c.hint) el("circle", { cx: mid, cy: mid, r: s * 0.1, fill: "#0f172a", "fill-opacity": 0.35, class: "hint" }, g);
  // Highlights.
  if (mark.winning) el("circle", { cx: mid, cy: mid, r: s * 0.47, fill: "none", stroke: WIN_COLOUR, "stroke-width": 3 }, g);
  if (mark.last && style.grid === "lines") el("circle", { cx: mid, cy: mid, r: s * 0.12, fill: "#e11d48" }, g);
  if (mark.last && style.grid === "holes") el("circle", { cx: mid, cy: mid, r: s * 0.46, fill: "none", stroke: LAST_COLOUR, "stroke-width": 3 }, g);
  if (mark.selected) el("rect", { x: 2, y: 2, width: s - 4, height: s - 4, fill: "none", stroke: SELECT_COLOUR, "stroke-width": 4, rx: 3 }, g);
}

// What each mark of the legend looks like in words, for `renderLegend`.
const MARK_NAMES = { star: "★", ring: "◎", faded: "faded", blocked: "hatched", hint: "•" };

// Writes the view's legend (what its marks mean) into `container`, or empties it.
export function renderLegend(container, view) {
  container.replaceChildren();
  for (const [markName, meaning] of view.legend || []) {
    const item = document.createElement("span");
    item.className = "legend-item";
    item.textContent = `${MARK_NAMES[markName] || markName}: ${meaning}`;
    container.append(item);
  }
  container.hidden = !(view.legend && view.legend.length);
}

// Turns a click on `cell` into what the page should do, by the view's input mode.
// `state` is an object the page keeps between clicks of one move (start with `{}` and
// start afresh after a move is sent). Returns:
//   {move: "B7"}                          a complete move to send ("cell", "column", "from-to")
//   {pending: "c1", selected: [x, y]}     the first square of a from-to move (outline it)
//   {pending: null}                       the selection was cleared (same square again)
//   {orders: "3 6 1; 3 5 2", total: 3}    Legions: the orders so far; the page sends them
//   {setup: "a1 4, c1 3", placed: 2}      a set-up so far (a click on a placed cell undoes it)
//   {}                                    nothing to do (not a move, game over)
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
    case "setup": {
      // The values go on the hint cells in the order clicked; once the values left are
      // all alike, they fill the hint cells left and the set-up is complete.
      if (!cell.hint) return {};
      state.placed = state.placed || [];
      const at = state.placed.findIndex((p) => p.name === cell.name);
      if (at >= 0) state.placed.splice(at, 1);
      else state.placed.push({ name: cell.name, value: view.setup[state.placed.length] });
      const left = view.setup.slice(state.placed.length);
      const hints = view.cells.filter((c) => c.hint);
      if (left.length && left.every((v) => v === left[0]) && state.placed.length < hints.length) {
        const value = (c) => (state.placed.find((p) => p.name === c.name) || { value: left[0] }).value;
        const move = hints.map(value).join("");
        state.placed = [];
        return { move };
      }
      return { setup: state.placed.map((p) => `${p.name} ${p.value}`).join(", "), placed: state.placed.length };
    }
    default:
      return {};
  }
}

// The Legions orders in `state` as move text, e.g. "3 6 1; 3 5 2" ("" for none).
export function ordersText(state) {
  return (state.orders || []).map((o) => `${o.name} ${o.count}`).join("; ");
}
