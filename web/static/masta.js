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
  async function post(url, data, opts) {
    data = data || {};
    opts = opts || {};
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
    else if (UNDOABLE.test(url) && opts.undo !== false && body.event && body.event.seq && !body.repeat) {
      offerUndo(body.event, opts.join);
    }
    return { ok: resp.ok, status: resp.status, body };
  }

  /* Undo: what the operator just recorded is offered back for a few seconds, as a void of it
     (the log keeps both; a void of a void restores). Kept across a page change or a reload. */
  const UNDOABLE = /\/(manual\/api\/events|rulings\/api\/corrections|evening\/api\/events)$/;
  const UNDO_MS = 8000;
  const UNDO_KEY = "masta.undo";
  const said = (ev) => (ev.type === "void" ? "#" + ev.event + " voided"
    : "#" + ev.seq + " " + ev.type.replace(/_/g, " ") + (ev.cards ? " " + ev.cards.join(" ") : "") + (ev.player ? " (" + ev.player + ")" : "") + " recorded");

  function offerUndo(ev, join) {
    let u = null;
    try { u = JSON.parse(sessionStorage.getItem(UNDO_KEY) || "null"); } catch (e) { u = null; }
    // `join`: the same tap recorded two events (a play and who played it): one Undo voids both
    const seqs = join && u && u.until > Date.now() ? u.seqs.concat([ev.seq]) : [ev.seq];
    u = { seqs, text: join && u && u.until > Date.now() ? u.text : said(ev), until: Date.now() + UNDO_MS };
    sessionStorage.setItem(UNDO_KEY, JSON.stringify(u));
    showUndo(u);
  }

  function showUndo(u) {
    const left = u.until - Date.now();
    if (left <= 0) return;
    const el = toast(u.text, false, left);
    el.append(h("button", { type: "button", class: "undo", onclick: async (e) => {
      e.currentTarget.disabled = true;
      sessionStorage.removeItem(UNDO_KEY);
      for (const seq of u.seqs.slice().reverse()) {
        const r = await post("/rulings/api/corrections", { type: "void", event: seq }, { join: seq !== u.seqs[u.seqs.length - 1] });
        if (!r.ok) return;
      }
    } }, "Undo"));
  }

  async function get(url) {
    const resp = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    return resp.json();
  }

  /* Whether snapshot `s` is not older than `now`: a snapshot fetched when the stream (re)opened
     may arrive after an update pushed since, and drawing it would undo that update. The log
     only grows within an evening, so its length orders them. */
  function fresher(s, now) {
    return !now || !s || s.evening !== now.evening || (s.seq || 0) >= (now.seq || 0);
  }

  let toastTimer = null;
  function toast(text, bad, ms) {
    let el = document.getElementById("toast");
    if (!el) { el = h("div", { id: "toast", class: "toast", role: "status" }); document.body.append(el); }
    el.replaceChildren(h("span", {}, text)); el.className = "toast" + (bad ? " bad" : ""); el.hidden = false;
    clearTimeout(toastTimer); toastTimer = setTimeout(() => { el.hidden = true; }, ms || 4000);
    return el;
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
    if (!handlers.update) handlers = { ...handlers, update: () => {} };
    for (const [name, fn] of Object.entries(handlers)) {
      if (name === "open") continue;
      es.addEventListener(name, (e) => {
        const msg = JSON.parse(e.data);
        if (name === "update") alertFor(msg);
        fn(msg);
      });
    }
    es.addEventListener("reload", () => location.reload());
    es.addEventListener("camera", (e) => cameraDot(JSON.parse(e.data)));
    return es;
  }

  /* The header's dot: filled while a camera watches, hollow once it stopped (or before one
     started); its colour is the live connection's. `m`: a `camera` message. */
  function cameraDot(m) {
    const conn = document.getElementById("conn");
    if (!conn || typeof m.running !== "boolean") return;
    conn.dataset.camera = m.running ? "on" : "off";
    conn.textContent = m.running ? "●" : "○";
    conn.title = "live connection; " + (m.running ? "the camera is watching" : m.status || "no camera");
  }

  const VERDICT = { legal: "Legal", illegal: "Illegal", penalty: "Penalty" };
  const HAPPENED = { burn: "Burn", pickup: "Pick-up", out: "Out", game_over: "Game over", setup: "New game" };

  /* The banner for what happened last when it is no play's ruling (a pick-up, a burn, a player
     out, the game's end with its titles, a new game): `last` (the server's `view.last`). */
  function happened(el, last, fresh) {
    el.classList.add("info", "happened", "k-" + last.kind);
    if (fresh) { void el.offsetWidth; el.classList.add("fresh"); }
    const titles = last.titles ? Object.entries(last.titles) : [];
    el.append(...[
      h("div", { class: "verdict" }, HAPPENED[last.kind] || last.kind),
      titles.length
        ? h("div", { class: "words titles" }, titles.map(([p, t], i) => [i ? ", " : "", h("b", {}, t), " " + p]))
        : h("div", { class: "words" }, last.text || ""),
      h("div", { class: "play" }, "#" + last.seq, last.next ? "  next: " + last.next : "",
        last.turn ? "  " + last.turn + " to play" : ""),
    ]);
  }

  /* The big banner: what happened last. A play's ruling: verdict, plain words, the rule it
     cites (and what happens next after an illegal play), the play; anything else that happened
     since (`last`, the server's view.last: a pick-up, the game's titles) instead. */
  function banner(el, latest, fresh, last) {
    el.className = "ruling";
    el.replaceChildren();
    if (last && last.kind !== "ruling") { happened(el, last, fresh); return; }
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
      h("div", { class: "verdict" }, VERDICT[verdict] || verdict),
      h("div", { class: "words" }, latest.text || ""),
      // the rule's own words a tap away: quoted whole they pushed whose turn it is off a phone
      rules.length ? h("details", { class: "rule" }, h("summary", {}, "Rule: ", h("span", { class: "gist" }, rules[0])),
        h("div", { class: "quote" }, rules.join(" · "))) : null,
      r.then_rule ? h("div", { class: "rule then-rule" }, "Then: " + r.then_rule) : null,
      h("div", { class: "play" }, "#" + latest.seq + " ",
        (ev.cards || []).map((c) => card(c, true)),
        ev.player ? " " + ev.player : "",
        r.next ? "  next: " + r.next : ""),
      ev.meta && ev.meta.low_conf && !latest.settled ? h("div", { class: "doubt" }, h("span", { class: "tag check" }, "check"),
        " The camera is unsure of these cards: look at the pot (corrections on the rulings page).") : null,
    ].filter(Boolean));  // append() would write a null as the text "null"
  }

  /* Heard, not only seen: on a phone that opted in (the header's ♪ button), an illegal play, a
     burn and the titles sound (a tone made here, Web Audio) and vibrate. `alerts` keeps what
     was given, newest last. */
  const SOUND_KEY = "masta.sound";
  const alerts = [];
  let audio = null;
  const soundOn = () => localStorage.getItem(SOUND_KEY) === "on";
  const TONES = {  // [frequency Hz, seconds] in turn; and the vibration pattern in ms
    illegal: { wave: "square", notes: [[220, 0.18], [0, 0.08], [165, 0.3]], buzz: [300, 100, 300] },
    burn: { wave: "sawtooth", notes: [[330, 0.08], [494, 0.08], [740, 0.2]], buzz: [150, 60, 150] },
    title: { wave: "triangle", notes: [[523, 0.14], [659, 0.14], [784, 0.14], [1047, 0.4]], buzz: [100, 50, 100, 50, 400] },
  };

  function ensureAudio() {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    if (!audio) audio = new AC();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  }

  function beep(kind) {
    const tone = TONES[kind];
    const ctx = ensureAudio();
    let sounded = false;
    if (ctx) {
      let t = ctx.currentTime + 0.02;
      for (const [f, d] of tone.notes) {
        if (f) {
          const osc = ctx.createOscillator(), gain = ctx.createGain();
          osc.type = tone.wave; osc.frequency.value = f;
          gain.gain.setValueAtTime(0.0001, t);
          gain.gain.exponentialRampToValueAtTime(0.25, t + 0.01);
          gain.gain.exponentialRampToValueAtTime(0.0001, t + d);
          osc.connect(gain).connect(ctx.destination);
          osc.start(t); osc.stop(t + d + 0.02);
        }
        t += d;
      }
      sounded = true;
    }
    const vibrated = typeof navigator.vibrate === "function" ? navigator.vibrate(tone.buzz) : false;
    alerts.push({ kind, sounded, vibrated, audio: ctx ? ctx.state : "none", at: Date.now() });
  }

  /* What an update calls for: the fresh event's own outputs (a correction re-rules older
     plays: those were heard when they happened), or those of the event a correction or a
     confirmation settles (a confirmed last player out ends the game). */
  function alertKinds(msg) {
    const ev = msg.event || {};
    const named = ["correct", "confirm", "counts"].includes(ev.type);  // the event they settle is ruled now
    const outs = (msg.outputs || []).filter((o) => o.event === ev.seq || (named && o.event === ev.event));
    const kinds = [];
    if (outs.some((o) => o.kind === "ruling" && o.verdict === "illegal")) kinds.push("illegal");
    if (outs.some((o) => o.kind === "burn" || (o.kind === "ruling" && (o.effects || []).includes("burn")))) kinds.push("burn");
    if (outs.some((o) => o.kind === "game_over")) kinds.push("title");
    return kinds;
  }

  let heardEnd = null;  // the game end last heard: a confirm that rules it again is not a new one
  function alertFor(msg) {
    if (!soundOn()) return;
    let kinds = alertKinds(msg);
    const end = (msg.outputs || []).find((o) => o.kind === "game_over");
    const endKey = end ? end.event + ":" + JSON.stringify(end.order || []) : null;
    if (kinds[0] === "title" && endKey === heardEnd) kinds = kinds.slice(1);
    if (end) heardEnd = endKey;
    if (kinds.length) beep(kinds[0]);  // one at a time: an illegal burn is heard as illegal
  }

  function soundButton() {
    const b = document.getElementById("sound");
    if (!b) return;
    const show = () => {
      b.setAttribute("aria-pressed", soundOn() ? "true" : "false");
      b.textContent = soundOn() ? "♪ on" : "♪ off";
    };
    b.addEventListener("click", () => {
      localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
      show();
      if (soundOn()) { ensureAudio(); toast("Sound and vibration on for this phone: an illegal play, a burn, the titles"); }
    });
    // a tab reopened with sound on: a browser starts audio only after a tap on the page
    document.addEventListener("pointerdown", () => { if (soundOn()) ensureAudio(); }, { once: true });
    show();
  }

  /* A table wider than the phone: a glow on its right edge and a line saying there is more. */
  function cueScrolls() {
    document.querySelectorAll(".scroll").forEach((el) => {
      const more = el.scrollWidth > el.clientWidth + 1 && el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      el.classList.toggle("more", more);
      let cue = el.nextElementSibling && el.nextElementSibling.classList.contains("scroll-cue") ? el.nextElementSibling : null;
      if (more && !cue) { cue = h("p", { class: "scroll-cue" }, "more columns: swipe the table sideways →"); el.after(cue); }
      if (cue) cue.hidden = !(el.scrollWidth > el.clientWidth + 1);
      if (!el.dataset.cued) { el.dataset.cued = "1"; el.addEventListener("scroll", cueScrolls, { passive: true }); }
    });
  }

  /* The screen stays awake while `wanted()` says so (a game on, on the live page): the lock
     goes when the page is hidden, so it is asked for again when it shows. */
  function keepAwake(wanted) {
    const say = (s) => { document.body.dataset.wake = s; };
    let lock = null, asking = false;
    async function ask() {
      if (!("wakeLock" in navigator)) { say("unsupported"); return; }
      if (asking) return;  // a request under way (pages redraw on every event)
      if (!wanted() || document.visibilityState !== "visible") {
        if (lock) { const l = lock; lock = null; l.release().catch(() => {}); }
        say("released");
        return;
      }
      if (lock && !lock.released) return;
      asking = true;
      try {
        lock = await navigator.wakeLock.request("screen");
        say("held");
        lock.addEventListener("release", () => { if (document.body.dataset.wake === "held") say("released"); });
      } catch (e) { say("refused: " + e.name); } finally { asking = false; }
      if (!wanted()) ask();  // the game ended while the lock was being asked for
    }
    document.addEventListener("visibilitychange", ask);
    return ask;
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
     table words, the likely answer first. The operator answers with one tap, or leaves a right
     one to step aside by itself after a round of play; the rest wait, a count (and, `all`, the
     whole list behind one tap). Spectators see this one question only. */
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
    if (!t.over) kids.push(h("div", { class: "small muted q-lapse" }, "Right as assumed? No tap needed: it steps aside after a round of play."));
    const rest = (t.questions || []).filter((a) => a.key !== q.key);
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

  document.addEventListener("DOMContentLoaded", () => {
    soundButton();
    cueScrolls();
    new MutationObserver(() => cueScrolls()).observe(document.querySelector("main") || document.body, { childList: true, subtree: true });
    window.addEventListener("resize", cueScrolls);
    let u = null;
    try { u = JSON.parse(sessionStorage.getItem(UNDO_KEY) || "null"); } catch (e) { u = null; }
    if (u && u.until > Date.now() && isOperator()) showUndo(u);  // recorded just before this page opened
  });

  return { h, card, post, get, fresher, toast, listen, banner, cameraDot, initial, when, promptBox, questionBox, isOperator, cardPicker,
    alerts, alertKinds, keepAwake, cueScrolls };
})();
