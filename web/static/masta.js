/* Shared by every page: posting with the CSRF token, the live event stream, drawing cards. */
"use strict";
const masta = (() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };

  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }

  function card(id, small) {
    id = String(id);
    if (id === "JK") return h("span", { class: "card joker" + (small ? " small" : ""), title: "joker" }, "JK");
    const suit = id.slice(-1), rank = id.slice(0, -1);
    const red = suit === "H" || suit === "D";
    return h("span", { class: "card" + (red ? " red" : "") + (small ? " small" : ""), title: id, "data-card": id },
      rank + (SUITS[suit] || suit));
  }

  /* An event carries a request id (meta.rid): sent again after a dropped connection or a
     server restart, it is recorded once (the server answers with the event it already has). */
  async function post(url, data) {
    data = data || {};
    const isEvent = /\/api\/(events|corrections|game|vote)$/.test(url);
    if (isEvent && !(data.meta && data.meta.rid)) {
      data = { ...data, meta: { ...(data.meta || {}), rid: Math.random().toString(36).slice(2) + Date.now().toString(36) } };
    }
    let resp = null;
    for (let attempt = 0; ; attempt++) {
      try {
        resp = await fetch(url, {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
          body: JSON.stringify(data),
        });
        break;
      } catch (e) {
        if (attempt >= 4 || !isEvent) { toast("the server does not answer: " + e, true); throw e; }
        await new Promise((ok) => setTimeout(ok, 1000 * (attempt + 1)));
      }
    }
    let body = {};
    try { body = await resp.json(); } catch (e) { body = { error: resp.statusText }; }
    if (!resp.ok) toast(body.error || ("refused: " + resp.status), true);
    return { ok: resp.ok, status: resp.status, body };
  }

  async function get(url) {
    const resp = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    return resp.json();
  }

  let toastTimer = null;
  function toast(text, bad) {
    let el = document.getElementById("toast");
    if (!el) { el = h("div", { id: "toast", class: "toast" }); document.body.append(el); }
    el.textContent = text; el.className = "toast" + (bad ? " bad" : ""); el.hidden = false;
    clearTimeout(toastTimer); toastTimer = setTimeout(() => { el.hidden = true; }, 4000);
  }

  /* One EventSource per page; handlers by message name ("update", "evening", "reload"). */
  function listen(handlers) {
    const conn = document.getElementById("conn");
    const es = new EventSource("/stream");
    es.onopen = () => { if (conn) conn.classList.add("up"); if (handlers.open) handlers.open(); };
    es.onerror = () => {
      if (conn) conn.classList.remove("up");
      // refused (server full, 503) rather than cut: browsers give up then, so try again later
      if (es.readyState === EventSource.CLOSED) setTimeout(() => listen(handlers), 5000);
    };
    for (const [name, fn] of Object.entries(handlers)) {
      if (name === "open") continue;
      es.addEventListener(name, (e) => fn(JSON.parse(e.data)));
    }
    es.addEventListener("reload", () => location.reload());
    return es;
  }

  /* The big ruling banner: verdict, plain words, the rule it cites, the play. */
  function banner(el, latest, fresh) {
    el.className = "ruling";
    el.replaceChildren();
    if (!latest) {
      el.append(h("div", { class: "words" }, "No ruling yet"));
      return;
    }
    const r = latest.ruling || {};
    const verdict = r.verdict || "info";
    el.classList.add(verdict);
    if (fresh) { void el.offsetWidth; el.classList.add("fresh"); }
    const rules = [...new Set((r.reasons || []).map((x) => x.rule).filter(Boolean))];  // two reasons may cite one rule
    const ev = latest.event || {};
    el.append(...[
      h("div", { class: "verdict" }, { legal: "Legal", illegal: "Illegal", penalty: "Penalty" }[verdict] || verdict),
      h("div", { class: "words" }, latest.text || ""),
      rules.length ? h("div", { class: "rule" }, "Rule: " + rules.join(" · ")) : null,
      h("div", { class: "play" }, "#" + latest.seq + " ",
        (ev.cards || []).map((c) => card(c, true)),
        ev.player ? " " + ev.player : "",
        r.next ? "  next: " + r.next : ""),
      ev.meta && ev.meta.low_conf && !latest.settled ? h("div", { class: "doubt" }, h("span", { class: "tag check" }, "check"),
        " The camera is unsure of these cards: look at the pot (corrections on the rulings page).") : null,
    ].filter(Boolean));  // append() would write a null as the text "null"
  }

  function initial(id) {
    const el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  function when(t) {
    return new Date(t * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  const isOperator = () => document.body.dataset.operator === "yes";

  /* An open question from the referee, with the buttons that answer it (operator only).
     `seat`: the side of the table the play came from (seat zones), chosen first for "who played". */
  function promptBox(p, players, seat) {
    const kids = [h("div", {}, p.text || p.prompt)];
    if (isOperator()) {
      const send = (ev) => post("/rulings/api/corrections", ev);
      const pick = () => h("select", { "aria-label": "player" }, (players || []).map((n) => h("option", {}, n)));
      const row = h("div", { class: "row" });
      if (p.prompt === "who_played" || p.prompt === "who_starts") {
        const s = pick();
        if (seat && p.prompt === "who_played" && (players || []).includes(seat)) {
          s.value = seat;
          kids.push(h("div", { class: "small muted" }, "The arm came from " + seat + "'s side."));
        }
        row.append(s, h("button", { type: "button", onclick: () => send(Object.assign({ type: "played_by", player: s.value }, p.prompt === "who_played" ? { event: p.event } : {})) }, "played it"));
      } else if (p.prompt === "target") {
        const s = pick();
        row.append(s, h("button", { type: "button", onclick: () => send({ type: "target", event: p.event, player: s.value }) }, "gets the pot"));
      } else if (p.prompt === "who_picked_up") {
        const s = pick();
        row.append(s, h("button", { type: "button", onclick: () => send({ type: "picked_up", event: p.event, player: s.value }) }, "picked it up"));
      } else if (p.prompt === "desync") {
        row.append(h("button", { type: "button", class: "confirm-btn", onclick: () => send({ type: "confirm", event: p.event }) }, "Confirm #" + p.event));
        if (p.player) {
          const n = (label) => h("input", { type: "number", min: 0, max: 60, placeholder: label, style: "width:5.5em", "aria-label": label });
          const hand = n("hand"), up = n("up"), down = n("down");
          row.append(" or count " + p.player + ": ", hand, up, down, h("button", { type: "button", onclick: () => send({
            type: "counts", player: p.player, hand: hand.value, face_up: up.value, face_down: down.value }) }, "Send counts"));
        }
      }
      if (row.childNodes.length) kids.push(row);
    }
    return h("div", { class: "prompt-box", "data-prompt": p.prompt || "" }, kids);
  }

  /* The referee's one question (view `question`): what it went on without being told, in
     table words, the likely answer first. The operator answers with one tap; the rest wait, a
     count (and, `all`, the whole list behind one tap). Spectators see this one question only. */
  function questionBox(t, all) {
    const q = t && t.question;
    if (!q) return null;
    const op = isOperator();
    // a question whose answers are no player's name (the cards of a mismatch, a claimed out)
    // carries `offers`: each one's label and the event its tap sends
    const answer = (a, name, i) => post("/rulings/api/corrections", a.offers ? a.offers[i].send
      : { type: a.answer.type, event: a.answer.event, player: name });
    const one = (a) => {
      const labels = a.offers ? a.offers.map((o) => o.label) : (a.options || []);
      const opts = labels.map((name, i) => op
        ? h("button", { type: "button", class: "answer" + (i === 0 ? " likely" : ""), "data-player": name,
          onclick: () => answer(a, name, i) }, name)
        : h("span", { class: i === 0 ? "likely" : "" }, name));
      const sep = opts.flatMap((o, i) => (i ? [" · ", o] : [o]));
      return [h("div", { class: "q-text" }, a.text, " ", h("span", { class: "q-options" }, sep)),
        h("div", { class: "small muted" }, h("span", { class: "tag assumed" }, "assumed"), " " + a.value + " (" + a.why + ")")];
    };
    const kids = one(q);
    const rest = (t.questions || []).slice(1);
    if (rest.length) {
      const count = rest.length + " more question(s) wait";
      kids.push(op && all
        ? h("details", { class: "q-all" }, h("summary", {}, count + ": open the whole list"),
          rest.map((a) => h("div", { class: "question-box more", "data-question": a.key }, one(a))))
        : h("div", { class: "small muted q-count" }, count));
    }
    return h("div", { class: "question-box", "data-question": q.key }, kids);
  }

  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

  /* Cards named with taps instead of typed: a phone's keyboard hides half the page, mid-game.
     A rank, then each of its suits played (tapped again, taken out); a chosen card's chip takes
     it out. `st` ({cards, rank}) is the caller's, so a page that redraws on every event keeps
     what was being picked. A joker is one tap (two at most: a deck has two). */
  function cardPicker(st, label) {
    st.cards = st.cards || [];
    const root = h("div", { class: "cpick", "aria-label": label || "pick cards" });
    const toggle = (c) => {
      const i = st.cards.indexOf(c);
      if (i >= 0) st.cards.splice(i, 1); else st.cards.push(c);
      draw();
    };
    function draw() {
      const chosen = st.cards.length
        ? st.cards.map((c, i) => h("button", { type: "button", class: "cpick-chip", "data-card": c, title: "take " + c + " out",
          onclick: () => { st.cards.splice(i, 1); draw(); } }, card(c, true), " ✕"))
        : h("span", { class: "muted small" }, "tap a rank, then its suits");
      const ranks = RANKS.map((r) => h("button", { type: "button", class: "cpick-rank" + (st.rank === r ? " on" : ""),
        "data-rank": r, onclick: () => { st.rank = st.rank === r ? null : r; draw(); } }, r));
      ranks.push(h("button", { type: "button", class: "cpick-rank", "data-rank": "JK",
        disabled: st.cards.filter((c) => c === "JK").length >= 2, onclick: () => { st.cards.push("JK"); draw(); } }, "JK"));
      const suits = st.rank ? h("div", { class: "cpick-suits" }, [..."CDHS"].map((x) => st.rank + x).map((c) =>
        h("button", { type: "button", class: "cpick-suit" + (st.cards.includes(c) ? " on" : ""), "data-card": c,
          onclick: () => toggle(c) }, card(c, true)))) : null;
      // replaceChildren() would write a null as the text "null"
      root.replaceChildren(...[h("div", { class: "cpick-chosen" }, chosen), h("div", { class: "cpick-ranks" }, ranks), suits].filter(Boolean));
    }
    draw();
    return root;
  }

  return { h, card, post, get, toast, listen, banner, initial, when, promptBox, questionBox, isOperator, cardPicker };
})();
