// Arbiter web arena: helpers every page uses (the JSON API, elements, navigation, the
// organiser's token kept in this browser).

/** Calls the API; resolves to the JSON body, or throws an Error with the server's reason. */
export async function api(path, options = {}) {
  const init = { ...options, headers: { ...(options.headers || {}) } };
  if (options.json !== undefined) {
    init.method = init.method || "POST";
    init.body = JSON.stringify(options.json);
    init.headers["Content-Type"] = "application/json";
    delete init.json;
  }
  if (options.token) {
    init.headers["Authorization"] = "Bearer " + options.token;
    delete init.token;
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (_) { body = null; }
  if (!response.ok) {
    const error = new Error((body && body.error) || text || response.statusText);
    error.status = response.status;
    error.body = body;
    throw error;
  }
  return body;
}

/** Makes an element: el("a", {href: "/"}, "text", child...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** The top navigation bar, with the current page marked. */
export function nav(here) {
  const links = [["/", "Tournaments"], ["/ladders", "Ladders"], ["/test", "Testing ground"], ["/play", "Play"],
    ["/submit", "Submit a bot"]];
  const who = el("a", { href: "/entrants", class: "who" + (here === "/entrants" ? " here" : ""), id: "signed-in" }, "Sign in");
  const bar = el("header", { class: "top" }, el("span", { class: "brand" }, "Arbiter"),
    links.map(([href, text]) => el("a", { href, class: here === href ? "here" : null }, text)), who);
  document.body.prepend(bar);
  whoAmI().then(me => { who.textContent = me.role === "organiser" ? "Organiser" : me.role === "entrant" ? me.name : "Sign in"; });
}

/** A refusal as a person reads it: what to do rather than how the API works. */
export function friendly(error) {
  const message = error.message || String(error);
  if (error.status === 401 && /organiser's token/.test(message)) {
    return "Only the organiser can do this: type the organiser's token (arbiter serve printed it when it started) in the token field.";
  }
  if (error.status === 401) {
    return "This needs a token: the organiser's, or your own as an entrant (paste it on the Entrants page).";
  }
  if (error.status === 403 && /token is not valid/.test(message)) {
    return "The token kept in this browser does not work any more (mistyped, or revoked): ask the organiser for a new one.";
  }
  if (error.status === 403 && /wrong organiser token/.test(message)) return "Only the organiser can do this.";
  if (error.status === 429) return "The server is busy with other people's games: " + message + ". Try again in a minute.";
  if (error.status >= 500) return "Something went wrong on the server: " + message;
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/** A time (RFC 3339 text or milliseconds) as people read it, in their time zone. */
export function when(time) {
  const date = new Date(time);
  return isNaN(date) ? "" : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** Calls the API with the token kept in this browser, if any; a token the server no
 *  longer takes is dropped and the call made again without it (what anyone may see). */
export async function apiAsMe(path) {
  const token = savedToken();
  if (!token) return api(path);
  try { return await api(path, { token }); } catch (error) {
    if (error.status === 403) return api(path);
    throw error;
  }
}

/** Who the token kept in this browser belongs to (`{role, name?}`: `organiser`,
 *  `entrant` or `anyone`), asked once a page. A token the server no longer takes counts
 *  as none. */
let whoPromise = null;
export function whoAmI() {
  if (!whoPromise) {
    const token = savedToken();
    whoPromise = token ? api("/api/me", { token }).catch(() => ({ role: "anyone" })) : Promise.resolve({ role: "anyone" });
  }
  return whoPromise;
}

/** Shows the elements marked `data-organiser` to the organiser only: spectators and
 *  entrants see no admin form. */
export async function organiserOnly() {
  const me = await whoAmI();
  for (const node of document.querySelectorAll("[data-organiser]")) node.hidden = me.role !== "organiser";
  return me;
}

/** The organiser's token as typed once in this browser. */
export function savedToken() { return localStorage.getItem("arbiter-token") || ""; }
/** Puts the saved token into the token field, unless something was typed there already:
 *  call it before the page's first `await`, so that it never overwrites what a person
 *  typed while the page was still loading its data. */
export function restoreToken(input) { if (!input.value) input.value = savedToken(); }
export function saveToken(token) { localStorage.setItem("arbiter-token", token); }

/** Fills a <select> with options [value, label]. */
export function fillSelect(select, items, selected) {
  select.replaceChildren(...items.map(([value, label]) => el("option", { value, selected: value === selected }, label)));
}

/** Input fields for a game's options, from /api/rules; returns a function reading them. */
export function optionFields(container, game) {
  container.replaceChildren();
  const inputs = [];
  for (const option of game.options) {
    const input = el("input", { type: "text", name: "opt-" + option.name, placeholder: option.default, title: option.help });
    inputs.push([option.name, input]);
    container.append(el("label", {}, option.name + " ", el("span", { class: "muted" }, "(" + option.help + ")")), input);
  }
  return () => Object.fromEntries(inputs.filter(([, input]) => input.value.trim() !== "").map(([name, input]) => [name, input.value.trim()]));
}

/** Points as the standings print them (halves as ½). */
export function points(p) {
  const whole = Math.floor(p);
  return Math.abs(p - whole - 0.5) < 1e-9 ? (whole ? whole + "½" : "½") : String(Math.round(p * 100) / 100);
}

/**
 * The game chooser of the testing-ground and play forms: fills `#game` from /api/rules,
 * the option fields in `#options`, and calls `onGame(game, bots)` with the game's rules
 * and bots at once and whenever the choice changes. Returns a function reading the
 * options typed.
 */
export async function gamePicker(onGame) {
  const rules = await api("/api/rules");
  const select = document.getElementById("game");
  fillSelect(select, rules.map(g => [g.name, g.title]), rules[0].name);
  let readOptions = () => ({});
  const choose = async () => {
    const game = rules.find(g => g.name === select.value);
    readOptions = optionFields(document.getElementById("options"), game);
    onGame(game, await api("/api/bots?game=" + game.name));
  };
  select.addEventListener("change", choose);
  await choose();
  return () => readOptions();
}
