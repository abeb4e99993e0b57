/* Live page: draws the table snapshot and the latest ruling; every update arrives by SSE. */
"use strict";
(() => {
  const { h, card, banner, listen, initial } = masta;
  let state = initial("init");
  let lastSeq = null;
  // the phone's screen stays on while a game is played (it may sleep again after the titles)
  const awake = masta.keepAwake(() => Boolean(state && state.game && !(state.table || {}).over));

  function playersOf(t) {
    let ps = t.players || [];
    if (!Array.isArray(ps)) ps = Object.entries(ps).map(([name, p]) => Object.assign({ name }, p));
    return ps.map((p) => (typeof p === "string" ? { name: p } : p));
  }

  function fact(label, value) {
    return h("div", { class: "fact" }, h("b", {}, value === undefined || value === null ? "–" : String(value)), h("span", {}, label));
  }

  function direction(d) {
    if (d === 1 || d === "clockwise" || d === "cw") return "↻ clockwise";
    if (d === -1 || d === "anticlockwise" || d === "counterclockwise" || d === "ccw") return "↺ anticlockwise";
    return d;
  }

  /* "what the next play must be" as the referee says it (">= 5") in words read at a glance */
  function nextWords(n) {
    if (n === undefined || n === null || n === "") return "";
    const m = /^(>=|<=|<|>)\s*(\S+)$/.exec(String(n).trim());
    if (m) return { ">=": m[2] + " or higher", "<=": m[2] + " or lower", "<": "lower than " + m[2], ">": "higher than " + m[2] }[m[1]];
    if (n === "any") return "anything";
    return String(n);
  }

  /* The headline, first on a phone: whose turn, what the next play must be; under it the
     last thing that happened, in one line. */
  function headline(s) {
    const t = s.table || {};
    const turn = document.getElementById("turn"), next = document.getElementById("next"), last = document.getElementById("last");
    let who, must = "";
    if (!s.game) who = "No game set up yet";
    else if (t.over) who = "Game " + (t.game || s.game) + " is over";
    else if (t.turn) { who = "▶ " + t.turn + " to play"; must = nextWords(t.next); }
    else if (t.awaiting_target) who = "Who gets the pot?";
    else { who = "Whoever starts plays"; must = nextWords(t.next); }
    turn.textContent = who;
    next.textContent = must ? "next: " + must : "";
    next.hidden = !must;
    const l = s.happened;
    last.className = "last-line" + (l ? " k-" + l.kind : "");
    last.textContent = l ? "#" + l.seq + " " + l.text : (s.game ? "Nothing played yet" : "");
    last.title = last.textContent;
  }

  function render(s, fresh) {
    const t = s.table || {};
    const latest = s.latest, last = s.last;
    headline(s);
    awake();
    // what happened last (a play's ruling, a pick-up, the titles): flashed when it is new
    const key = last ? last.kind + last.seq : latest ? "ruling" + latest.seq : null;
    banner(document.getElementById("banner"), latest, fresh && key !== null && key !== lastSeq, last);
    lastSeq = key;
    const pot = document.getElementById("pot");
    const cards = t.pot || [];
    // an illegal play's cards lie there but do not count: marked, with what happens to them
    const bad = new Set(t.pot_illegal || []);
    const drawn = cards.map((c, i) => {
      const el = card(c);
      if (bad.has(i)) { el.classList.add("illegal"); el.title = c + ": illegal, does not count"; }
      return el;
    });
    pot.replaceChildren(...(cards.length ? drawn : [h("span", { class: "muted" }, "empty")]),
      ...(t.penalty ? [h("div", { class: "small penalty-note" }, "Crossed out: an illegal play. " + t.penalty +
        " takes it back with the pot.")] : []));
    document.getElementById("facts").replaceChildren(
      fact("turn", t.turn ? t.turn + (t.turn_assumed ? " (assumed)" : "") : t.turn),
      fact("next play", t.next || t.next_play),
      fact("direction", direction(t.direction)),
      fact("stock", t.stock),
      fact("burns", t.burns && typeof t.burns === "object" ? t.burns.total : t.burns),
      fact("pot", cards.length),
    );
    document.getElementById("game").textContent = s.game ? "game " + s.game + (s.preset ? " · " + s.preset : "") : "no game set up";
    const rows = playersOf(t);
    const names = rows.length ? rows : (s.players || []).map((n) => ({ name: n }));
    document.getElementById("players").replaceChildren(...names.map((p) => h("tr", {},
      h("td", { class: p.name === t.turn ? "turn" : "" }, (p.name === t.turn ? "▶ " : "") + p.name,
        p.title ? h("span", { class: "tag" }, " " + p.title) : null),
      h("td", {}, p.out ? "out" + (p.place ? " (" + p.place + ")" : "") : (p.phase === undefined ? "–" : String(p.phase))),
      h("td", {}, p.hand ?? "–"), h("td", {}, p.face_up ?? "–"), h("td", {}, p.face_down ?? "–"))));
    const names2 = names.map((p) => p.name);
    // one question at a time: the referee's (what it assumed), else the first of its other
    // prompts (counts that do not add up); the rest wait on the rulings page, counted
    const others = (t.prompts || []).slice(t.question ? 0 : 1);
    const prompts = [].concat(t.question ? [] : (t.prompts || []).slice(0, 1),
      others.length ? [{ text: others.length + " more to check on the rulings page" }] : [],
      (t.suspicions || []).slice(-3).map((x) => ({ text: "Suspicion: " + (x.text || x.suspicion) })));
    document.getElementById("prompts").replaceChildren(...[over(t, s.summary), masta.questionBox(t, false)]
      .concat(prompts.map((p) => masta.promptBox(p, names2))).filter(Boolean));
  }

  /* The game's end, said at the top: who got which title, and what to do next. Plays the
     camera saw after it are held unruled: play going on means a misread ended the game. */
  function over(t, summary) {
    if (!t.over) return null;
    const titles = t.titles || {};
    const kids = [h("b", {}, "Game " + t.game + " is over: "),
      (t.finishing_order || []).map((n) => n + (titles[n] ? " " + titles[n] : "")).join(", ") + ". ",
      h("a", { href: "/setup/" }, "Set up the next game"), "."];
    if (t.titles_assumed) kids.push(h("div", { class: "small" }, h("span", { class: "tag assumed" }, "assumed"),
      " These titles rest on " + t.titles_assumed + " assumption(s) nobody confirmed."));
    if (summary) kids.push(h("div", { class: "small muted summary" }, summary.text));
    const held = t.held || [];
    if (held.length) {
      kids.push(h("div", { class: "held" }, "The camera has seen " + held.length + " play(s) since (#" + held.join(", #") +
        "), kept and not ruled. Still this game? Then a misread ended it at #" + t.ended_at + " or before: fix it on ",
        h("a", { href: "/rulings/#e" + t.ended_at }, "the rulings page"), " and they are ruled where they happened. A new game? Set it up."));
    }
    return h("div", { class: "notice game-over" }, kids);
  }

  const cam = document.getElementById("camera");
  const camStatus = document.getElementById("camera-status");
  cam.onerror = () => {  // the moving picture refused (server full) or cut: show a still every second
    if (cam.dataset.still) return;
    cam.dataset.still = "1";
    setInterval(() => { cam.src = "/live/frame.jpg?t=" + Date.now(); }, 1000);
  };
  function tryCamera() {
    fetch("/live/frame.jpg", { method: "HEAD" }).then((r) => {
      // the last frame of a camera that stopped is still served: the status then stays said
      const on = (document.getElementById("conn") || { dataset: {} }).dataset.camera === "on";
      if (r.ok) { cam.src = cam.dataset.src; cam.hidden = false; camStatus.hidden = on; }
      else setTimeout(tryCamera, 5000);
    }).catch(() => setTimeout(tryCamera, 5000));
  }
  tryCamera();

  render(state, false);
  listen({
    update: (msg) => { state = msg.view; render(state, true); },
    camera: (msg) => { camStatus.textContent = msg.status; camStatus.hidden = false; },
    // (re)connected: what changed meanwhile, the camera's state too (it may have stopped)
    open: () => masta.get("/live/state.json").then((s) => {
      if (masta.fresher(s, state)) { state = s; render(s, false); }
      masta.cameraDot({ running: s.camera_running, status: s.camera });
      if (!s.camera_running) { camStatus.textContent = s.camera; camStatus.hidden = false; }
    }),
  });
})();
