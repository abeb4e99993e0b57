/* Rulings page: every event with its rulings, suspicions, evidence and corrections. */
"use strict";
(() => {
  const { h, card, banner, listen, initial, post, get, when, cardPicker, toast } = masta;
  let state = initial("init");
  const box = document.getElementById("entries");
  const operator = box.dataset.operator === "yes";

  const sameCards = (a, b) => [...(a || [])].sort().join(" ") === [...(b || [])].sort().join(" ");

  /* An event in words; `of`: the event it corrects, when shown under it. */
  function describe(ev, of) {
    switch (ev.type) {
      case "setup": return ["Game " + (ev.game || "") + " set up: " + (ev.players || []).join(", ") + "; dealer " + ev.dealer + "; rules " + ev.preset];
      case "cards_played": return ["Played ", (ev.cards || []).map((c) => card(c, true)), ev.player ? " by " + ev.player : ""];
      case "pot_cleared": return ["Pot cleared"];
      case "correct": return of && of.type === "cards_played" && sameCards(of.cards, ev.cards)
        ? ["#" + ev.event + " checked: right as read"]
        : ["Correction of #" + ev.event + ": really ", (ev.cards || []).map((c) => card(c, true))];
      case "missed": return ev.cleared ? ["The pot went after #" + ev.event + " (the camera missed it)"]
        : ["Played after #" + ev.event + " (the camera missed it): ", (ev.cards || []).map((c) => card(c, true))];
      case "played_by": return ["#" + ev.event + " was played by " + ev.player];
      case "target": return [ev.player + " gets the pot" + (ev.event ? " (from #" + ev.event + ")" : "")];
      case "picked_up": return [ev.player + " picked up the pot"];
      case "player_out": return [ev.player + " is out"];
      case "game_end": return ev.event ? ["#" + ev.event + ": " + ev.player + " was left holding cards"]
        : ["Game over" + (ev.player ? ": " + ev.player + " was left holding cards" : ev.source === "camera" ? " (the video ended)" : "")];
      case "void": return ["#" + ev.event + " did not happen (void)"];
      case "note": return ["Note" + (ev.meta && ev.meta.event ? " on #" + ev.meta.event : "") + ": " + ev.text];
      case "counts": return !ev.player ? ["Counted the stock: " + ev.stock] : ["Counted " + ev.player + ": hand " + (ev.hand ?? "?") + ", up " + (ev.face_up ?? "?") + ", down " + (ev.face_down ?? "?")];
      case "confirm": return ["Confirmed #" + ev.event];
      case "duty": return [ev.player + " → " + ev.to + ": " + ev.duty + (ev.card ? " " + ev.card : "")];
      case "order": return ["Order from " + ev.player + ": " + ev.text];
      case "vote": return [ev.player + " votes " + (ev.serves ? "yes" : "no") + " on order #" + ev.order];
      default: return [ev.type];
    }
  }

  function who(ev) {
    const by = (ev.meta && ev.meta.by) || ev.source;
    return by + " at " + when(ev.t);
  }

  /* A setup after plays the camera saw past the last game's end: if they were this game's (it
     began before anyone set it up), one tap adds each, in order, as a play the camera missed. */
  function addHeld(o, ev, entries) {
    const plays = o.held.map((s) => entries.find((e) => e.event.seq === s)).filter(Boolean).map((e) => e.event.cards);
    if (!plays.length || !masta.isOperator()) return null;
    if (entries.some((e) => e.event.type === "missed" && e.event.event === ev.seq)) return h("span", { class: "muted small" }, " (added)");
    return h("button", { type: "button", class: "add-held", onclick: async (e) => {
      e.currentTarget.disabled = true;  // one tap adds them once
      let at = ev.seq;
      for (const cards of plays) {
        const r = await post("/rulings/api/corrections", { type: "missed", event: at, cards });
        if (!r.ok) return;
        at = r.body.event.seq;
      }
    } }, "Add them to this game");
  }

  function output(o, ev, entries) {
    const k = o.verdict || o.kind;
    const rules = [...new Set((o.reasons || []).map((r) => r.rule).filter(Boolean))];  // two reasons may cite one rule
    return h("div", { class: "out" }, h("span", { class: "tag " + k }, k), " ", o.plain || "",
      o.assumed ? h("span", { class: "tag assumed", title: "nobody said: " + (o.assumed.cards
        ? "the rank the camera's reads lean to most, of those the rules allow" : o.assumed.by === "camera"
        ? "the camera saw it come from that side" : o.assumed.by === "hand"
        ? "they picked up that card: it was in their hand" : "the rules make it likeliest") },
        "assumed " + [o.assumed.player, (o.assumed.cards || []).join(" ")].filter(Boolean).join(" ")) : null,
      rules.length ? h("span", { class: "muted small" }, " (" + rules.join("; ") + ")") : null,
      o.next ? h("span", { class: "muted small" }, " next " + o.next) : null,
      o.held && ev && ev.type === "setup" ? addHeld(o, ev, entries) : null);
  }

  const rankOf = (c) => (c === "JK" ? c : c.slice(0, -1));
  /* Nothing was played at event `seq` (a card nudged and read again, a shadow): one tap voids
     it, and the check goes; voiding the void in "Correct #n" undoes it. */
  const nothingPlayed = (cls, seq) => h("button", { type: "button", class: cls, onclick: () =>
    post("/rulings/api/corrections", { type: "void", event: seq }) }, "Nothing was played here");
  // the cards of `rank` not among `cards`: one more of a rank, where a card may be missing
  const otherSuits = (rank, cards) => [..."CDHS"].map((x) => rank + x).filter((c) => !cards.includes(c));
  const RANK_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  // a read's two likeliest other cards, at least 5% (`_likely_others` in datasets/game_video.py)
  const LIKELY = 0.05;
  const likelyOthers = (votes, read) => Object.entries(votes || {})
    .filter(([c, p]) => c !== read && p >= LIKELY).sort((a, b) => b[1] - a[1]).slice(0, 2);

  /* A play is one rank: where two reads or more of a play read in several ranks agree on
     another rank among their likely others (at least 5%: an unfamiliar deck's fanned jacks read
     "Q♣ 7♥", each with a jack among its others), those cards, then each with one more of that
     rank. `agreed_rank` in datasets/game_video.py counts the same. */
  function agreedRank(cards, reads) {
    if (new Set(cards.map(rankOf)).size < 2) return [];
    const score = {}, picked = {};
    (reads || []).slice(0, cards.length).forEach((votes) => {
      const best = {};
      Object.entries(votes || {}).forEach(([c, p]) => {
        if (c !== "JK" && p >= LIKELY && p > (best[rankOf(c)] || [0])[0]) best[rankOf(c)] = [p, c];
      });
      Object.entries(best).forEach(([rank, [p, c]]) => {
        picked[rank] = picked[rank] || [];
        if (!picked[rank].includes(c)) { picked[rank].push(c); score[rank] = (score[rank] || 0) + p; }
      });
    });
    const agreed = Object.keys(picked).filter((r) => picked[r].length >= 2);
    if (!agreed.length) return [];
    const rank = agreed.reduce((a, b) => (score[b] > score[a] || (score[b] === score[a]
      && RANK_ORDER.indexOf(b) < RANK_ORDER.indexOf(a)) ? b : a));
    const seen = picked[rank];
    return [seen].concat(seen.length < 4 ? otherSuits(rank, seen).map((c) => seen.concat([c])) : []);
  }

  /* What the operator is picking or typing for an event, kept across the redraw each new event
     brings: by key ("m" + seq for a mismatch, "c" + seq for a correction, "a" + seq for a play
     missed after that event). */
  const picks = {};

  /* Cards picked by taps (`start` first: the read being corrected), or typed instead, and a
     button that sends them; the typed field wins when it holds anything. */
  function namer(key, start, send, { button, buttonText, input, placeholder, aria }) {
    const from = start.join(" ");  // the play corrected meanwhile: start again from its cards
    if (picks[key] && picks[key].from !== from) delete picks[key];
    const st = picks[key] = picks[key] || { cards: [...start], rank: null, typed: "", open: false, from };
    const inp = h("input", { placeholder, size: 12, class: input, "aria-label": aria, value: st.typed || null,
      oninput: (e) => { st.typed = e.target.value; } });
    const go = async () => {
      const cards = (st.typed || "").trim() || st.cards.join(" ");
      if (!cards) { toast("Pick the cards first: tap a rank, then its suits", true); return; }
      const r = await send(cards);
      if (r && r.ok) delete picks[key];
    };
    return [cardPicker(st, aria), h("div", { class: "row" }, "or type ", inp,
      h("button", { type: "button", class: button, onclick: go }, buttonText))];
  }

  /* The same behind a summary line, opened with one tap; stays open across redraws. */
  function namerBox(key, summary, start, send, opts) {
    const kids = namer(key, start, send, opts);
    return h("details", { class: "namer", open: picks[key].open || null,
      ontoggle: (e) => { if (picks[key]) picks[key].open = e.target.open; } }, h("summary", {}, summary), kids);
  }

  /* One-tap fixes only on the current game's events: the referee takes corrections of those
     alone (an earlier game's standings are settled), so elsewhere a tap would be refused. */
  const operatorHere = (inGame) => operator && inGame;
  const settledWhy = () => h("span", { class: "settled-why" },
    "This is an earlier game's event: its game is settled, and corrections name the current game's events only.");

  /* A line that asks a person to look: the "check" tag, then what to look at. */
  const check = (...kids) => h("div", { class: "out doubt" }, h("span", { class: "tag check" }, "check"), ...kids);

  /* A camera read the watcher was unsure of (meta.low_conf): say so, with why (meta.detail)
     and the other likely cards (meta.reads), so someone looks at the cards and corrects it.
     `settled` (the server's): a person corrected it (or confirmed it as read), or voided it:
     asked no more. */
  function doubt(ev, settled, inGame) {
    const m = ev.meta || {};
    if (ev.type !== "cards_played" || !m.low_conf || settled) return null;
    const operator = operatorHere(inGame);
    const cards = ev.cards || [];
    const fix = (real) => post("/rulings/api/corrections", { type: "correct", event: ev.seq, cards: real.join(" ") });
    // the other likely cards of read `i`: its two likeliest others, at least 5%
    const likely = (i) => likelyOthers((m.reads || [])[i], cards[i]);
    // ... of each read; for the operator, one tap puts one in its place
    const others = (m.reads || []).flatMap((_, i) => likely(i)
      .map(([c, p]) => {
        const label = [card(cards[i] || "?", true), " or ", card(c, true), " (" + Math.round(p * 100) + "%) "];
        const real = cards.map((x, k) => (k === i ? c : x));
        return operator && cards[i] && !cards.includes(c)
          ? h("button", { type: "button", class: "alt fix-alt", "data-alt": cards[i] + " or " + c,
            title: "It was " + real.join(" "), onclick: () => fix(real) }, label)
          : h("span", { class: "alt", "data-alt": (cards[i] || "?") + " or " + c }, label);
      }));
    // one tap corrects the play to `real`: the operator's, where the camera named a likely fix
    const oneTap = (cls, real) => operator ? [" ", h("button", { type: "button", class: cls, onclick: () => fix(real) },
      "It was ", real.map((c) => card(c, true)))] : null;
    // a card too many (one card's two corners read as two suits, a card under the play): one
    // tap takes out the card that is not there
    const drop = operator && cards.length > 1 ? [" One card too many? ", cards.map((c, i) => [" ",
      h("button", { type: "button", class: "fix-drop", onclick: () => fix(cards.filter((_, k) => k !== i)) },
        "Not ", card(c, true))])] : null;
    // a card that may lie under the play too (a fanned pair read as one): one tap adds it
    const more = (m.maybe_more || []).filter((c) => !cards.includes(c));
    // ... or it is the play's least sure card, misread (a 2S 2H 2C read "2H 2D 2C",
    // the 2D read at 0.24, "2S also half seen"): one tap puts it in that card's place
    const sureOf = (i) => ((m.reads || [])[i] || {})[cards[i]] || 0;
    const weakest = cards.length > 1 && (m.reads || []).length >= cards.length
      ? cards.map((_, i) => i).reduce((a, b) => (sureOf(b) < sureOf(a) ? b : a)) : -1;
    // (not where "or" above offers it already, among that read's likeliest others)
    const offered = weakest >= 0 ? likely(weakest).map(([c]) => c) : [];
    const swaps = weakest >= 0 ? more.filter((c) => !offered.includes(c))
      .map((c) => oneTap("fix-swap", cards.map((x, k) => (k === weakest ? c : x)))) : [];
    // a card short: one tap adds a card of the play's rank of a suit not in it (not the one
    // card "It was" adds already; of several named, each is offered alone too)
    const rank = cards.length && cards.every((c) => c !== "JK" && rankOf(c) === rankOf(cards[0])) ? rankOf(cards[0]) : null;
    const add = operator && rank && cards.length < 4
      ? otherSuits(rank, cards).filter((c) => !(more.length === 1 && more.includes(c))) : [];
    const plus = add.length ? [" One card more? ", add.map((c) => [" ", h("button", { type: "button", class: "fix-add",
      onclick: () => fix(cards.concat([c])) }, "+ ", card(c, true))])] : null;
    // ... or a triple read as one card with a second half seen (Knoll's jacks and queens:
    // a QC QS QH read "QS", "QC also half seen"): the play, the cards
    // half seen, and one more of its rank
    const both = cards.concat(more);
    const third = rank && more.length && more.every((c) => rankOf(c) === rank) && both.length < 4
      ? otherSuits(rank, both).map((c) => oneTap("fix-third", both.concat([c]))) : [];
    // a card the camera read half hidden beside the play and added to it: one tap takes it out
    const less = (m.maybe_less || []).filter((c) => cards.includes(c));
    const kept = cards.filter((c) => !less.includes(c));
    // ... or it is there, its suit misread from the half of it seen (a JC
    // JS JD read "JC JD JH", the JH half under it): one tap puts each other suit of its rank in
    // its place (not one its read's "or" offers already, nor a card half seen that `swaps`
    // puts there: a JS JD read "JD JC", the JC half under it, "JH also
    // half seen")
    const resuit = operator ? less.filter((c) => c !== "JK").flatMap((c) => {
      const i = cards.indexOf(c);
      const offered = likely(i).map(([x]) => x).concat(i === weakest ? more : []);
      return otherSuits(rankOf(c), cards).filter((x) => !offered.includes(x))
        .map((x) => oneTap("fix-suit", cards.map((y, k) => (k === i ? x : y))));
    }) : [];
    // none of these: the card picker of "Correct #n" below, opened
    const pick = operator ? [" ", h("button", { type: "button", class: "fix-pick", onclick: (e) => {
      const d = e.target.closest("article").querySelector("details.editor");
      d.fill();
      d.open = true;
      d.scrollIntoView({ block: "nearest" });
    } }, "Other cards…")] : null;
    // the read was right after all: one tap says so, and the check goes
    const right = operator ? [" ", h("button", { type: "button", class: "fix-right", onclick: () => fix(cards) },
      "Right as read")] : null;
    // nothing was played: as a mismatch's
    const none = operator ? [" ", nothingPlayed("fix-none", ev.seq)] : null;
    return check(" The camera is unsure of this read" + (m.detail ? ": " + m.detail : "") + ". ",
      others.length ? ["Other likely cards: ", others] : null,
      inGame ? "Look at the pot and correct it if it is wrong." : settledWhy(), right,
      more.length ? oneTap("fix-more", cards.concat(more)) : null, third, swaps,
      less.length && kept.length ? oneTap("fix-less", kept) : null, resuit,
      agreedRank(cards, m.reads).map((real) => oneTap("fix-agreed", real)),
      drop, plus, none, pick);
  }

  /* A camera mismatch (meta.mismatch: two plays seen as one, a card gone, a card that landed
     unread): ruled meanwhile as its likeliest read (assumed: still asked here); a person looks at the photos and names the play
     here; it is then ruled where it happened, and the plays after it again. One tap names
     each rank the camera half saw (meta.cards), or one of its cards alone, or them and one
     more of that rank (a fanned pair half read: the benchmark's commonest mismatch); any other
     cards are picked by taps or typed. `one_tap_fixes` in datasets/game_video.py counts the same. */
  function unsure(ev, named, voided, inGame) {
    if (ev.type !== "note" || !(ev.meta && ev.meta.mismatch)) return null;
    if (named || voided) return null;  // named (the ruling and the correction show below), or nothing played
    if (!inGame) return check(" The camera could not tell what happened here. ", settledWhy());
    const lead = " The camera could not tell what happened here. Look at the photos and the pot; if cards were played here, ";
    if (!operator) return check(lead, "the operator names them.");
    const name = (cards) => post("/rulings/api/corrections", { type: "correct", event: ev.seq, cards: cards });
    const groups = {};
    // cards that left the pot (taken back, part of the pot gone) are no play to offer; what
    // the camera half read where they were covered is (meta.guesses)
    ((ev.meta.gone ? ev.meta.guesses : ev.meta.cards) || []).forEach((c) => { (groups[rankOf(c)] = groups[rankOf(c)] || []).push(c); });
    const taps = Object.values(groups).map((g) => {
      const rank = rankOf(g[0]);
      const only = g.length > 1 ? [" or only", g.map((c) => [" ", h("button", { type: "button", class: "name-one",
        title: "Played here: " + c, onclick: () => name([c]) }, card(c, true))])] : null;
      const add = rank !== "JK" && g.length < 4 ? otherSuits(rank, g) : [];
      const more = add.length ? [" or one more:", add.map((c) => [" ", h("button", { type: "button", class: "name-more",
        title: "Played here: " + g.concat([c]).join(" "), onclick: () => name(g.concat([c])) }, "+ ", card(c, true))])] : null;
      return [" ", h("span", { class: "seen" }, h("button", { type: "button", class: "name-seen", onclick: () => name(g) },
        "Played here: ", g.map((c) => card(c, true))), only, more)];
    });
    // ... or one rank its reads agree on (each read's likely others), where not offered above
    const key = (cs) => [...cs].sort().join(" ");
    const above = new Set(Object.values(groups).flatMap((g) => [g].concat(g.length > 1 ? g.map((c) => [c]) : [],
      rankOf(g[0]) !== "JK" && g.length < 4 ? otherSuits(rankOf(g[0]), g).map((c) => g.concat([c])) : [])).map(key));
    const agreed = ev.meta.gone ? [] : agreedRank(ev.meta.cards || [], ev.meta.reads)
      .filter((real) => !above.has(key(real))).map((real) => [" ",
      h("button", { type: "button", class: "name-agreed", title: "Played here: " + real.join(" "),
        onclick: () => name(real) }, "Played here: ", real.map((c) => card(c, true)))]);
    const other = namerBox("m" + ev.seq, taps.length ? "Other cards…" : "Pick the cards…", [], name, {
      button: "name-play", buttonText: "Played here", input: "name-cards", placeholder: "cards, e.g. 9S 9H",
      aria: "cards played at #" + ev.seq });
    return check(lead, "name them:", taps, agreed, " ", nothingPlayed("name-none", ev.seq), other);
  }

  /* The side of the table the arm came from (seat zones, drawn on the set-up page): a hint. Not
     the side of the player the referee took: a Turbo, or someone playing for another? One tap
     says who played. */
  function seatHint(ev, outputs, players, inGame) {
    const seat = ev.meta && ev.meta.seat;
    const operator = operatorHere(inGame);
    if (ev.type !== "cards_played" || !seat) return null;
    const ruling = outputs.find((o) => o.kind === "ruling");
    const player = ruling && ruling.player;
    if (!player || player === seat || !players.includes(seat)) {
      return h("div", { class: "small muted seat" }, "The arm came from " + seat + "'s side.");
    }
    return h("div", { class: "doubt seat" }, h("span", { class: "tag check" }, "who?"),
      " The arm came from " + seat + "'s side, not " + player + "'s: a Turbo, or " + seat + " played for " + player + "? ",
      operator ? h("button", { type: "button", class: "seat-played-by", onclick: () =>
        post("/rulings/api/corrections", { type: "played_by", event: ev.seq, player: seat }) }, "Played by " + seat) : null);
  }

  function evidence(ev) {
    const e = ev.evidence || {};
    const imgs = ["before", "after"].filter((k) => e[k]).map((k) =>
      h("a", { href: "/evidence/" + e[k], target: "_blank" }, h("img", { class: "evi", src: "/evidence/" + e[k], alt: k + " frame", loading: "lazy" })));
    return imgs.length ? h("div", { class: "row" }, imgs) : null;
  }

  /* A `<details>` whose contents are built when it first opens: an evening has hundreds of
     events, and every one's editor built up front (card pickers, dozens of buttons each) made
     the page too heavy for a phone to redraw. `d.fill()` builds them now (opening it in code). */
  function lazyDetails(cls, summary, build) {
    const d = h("details", { class: cls }, h("summary", {}, summary));
    d.fill = () => {
      if (d.built) return;
      d.built = true;
      d.append(...[].concat(build()).filter(Boolean));
    };
    d.addEventListener("toggle", () => { if (d.open) d.fill(); });
    return d;
  }

  function editor(ev, players, inGame, r) {
    if (!operator) return null;
    const seq = ev.seq;
    if (ev.type === "setup" && !inGame) return null;
    if (!inGame) return lazyDetails("editor", "Note on #" + seq + "…", () => noteRow(seq, [settledWhy()]));
    return lazyDetails("editor", "Correct #" + seq + "…", () => editorKids(ev, players, inGame, r));
  }

  function noteRow(seq, kids) {
    const note = h("input", { placeholder: "note", size: 10 });
    kids.push(note, h("button", { type: "button", onclick: () =>
      post("/rulings/api/corrections", { type: "note", event: seq, text: note.value }) }, "Note"));
    return h("div", { class: "row" }, kids);
  }

  /* The cards a play counts as now: a person's correction's (the ruling's), else the camera's
     read; what "Correct #n" starts from. */
  const cardsNow = (ev, r) => {
    const ruling = (r && r.outputs || []).find((o) => o.kind === "ruling");
    return (ruling && ruling.cards) || ev.cards || [];
  };

  const suitOf = (c) => c.slice(-1);

  /* One tap, once "Correct #n" is open, for the likeliest fixes of any play, whether the camera
     asked about it or not: each read's likeliest others in its place, the cards half seen
     added, one more of its rank, one card taken out, or (a play of one rank) the same suits in
     another rank (an unfamiliar deck's court read surely as a pip card: Q♥ read 3♥, Q♥ Q♣ read
     6♥ 6♣). From the camera's read while nobody has corrected it, else from the correction.
     `editor_fixes` in datasets/game_video.py counts the same. */
  function quickFixes(ev, r) {
    const m = ev.meta || {};
    const cards = cardsNow(ev, r);
    if (!cards.length) return null;
    const asRead = cards.join(" ") === (ev.cards || []).join(" ");
    const fix = (real) => post("/rulings/api/corrections", { type: "correct", event: ev.seq, cards: real.join(" ") });
    const tap = (cls, real, label) => [" ", h("button", { type: "button", class: cls, title: "It was " + real.join(" "),
      onclick: () => fix(real) }, label || real.map((c) => card(c, true)))];
    const rows = [];
    const more = asRead ? (m.maybe_more || []).filter((c) => !cards.includes(c)) : [];
    // each read's likeliest others in its place; of one card, one of another rank with one more too
    const likely = asRead ? (m.reads || []).slice(0, cards.length).flatMap((votes, i) => likelyOthers(votes, cards[i])
      .filter(([c]) => !cards.includes(c)).flatMap(([c]) => [cards.map((x, k) => (k === i ? c : x))]
        .concat(cards.length === 1 && c !== "JK" && rankOf(c) !== rankOf(cards[0])
          ? otherSuits(rankOf(c), [c]).map((x) => [c, x]) : []))) : [];
    likely.push(...(asRead ? agreedRank(cards, m.reads) : []));
    if (more.length || likely.length) {
      rows.push(h("div", { class: "row quick-likely" }, "Likely:",
        more.length ? tap("quick-more", cards.concat(more)) : null, likely.map((real) => tap("quick-alt", real))));
    }
    const rank = cards.every((c) => c !== "JK" && rankOf(c) === rankOf(cards[0])) ? rankOf(cards[0]) : null;
    if (rank && cards.length < 4) {
      rows.push(h("div", { class: "row quick-adds" }, "One card more:",
        otherSuits(rank, cards).map((c) => tap("quick-add", cards.concat([c]), ["+ ", card(c, true)]))));
    }
    if (cards.length > 1) {
      rows.push(h("div", { class: "row quick-drops" }, "One card less:",
        cards.map((c, i) => tap("quick-drop", cards.filter((_, k) => k !== i), ["Not ", card(c, true)]))));
    }
    if (rank) {
      const suits = cards.map(suitOf);
      rows.push(h("div", { class: "row quick-ranks" }, cards.length > 1 ? "Another rank, same suits:" : "Another rank:",
        RANK_ORDER.filter((x) => x !== rank).map((x) => tap("quick-rank", suits.map((u) => x + u),
          cards.length > 1 ? x : card(x + suits[0], true)))));
    }
    return rows.length ? h("div", { class: "stack quick-fixes" }, rows) : null;
  }

  function editorKids(ev, players, inGame, r) {
    const seq = ev.seq;
    // a play (or the pot going) the camera never saw, right after this event: ruled there, the
    // events after it again
    const missed = inGame ? namerBox("a" + seq, "A play the camera missed after #" + seq + "…", [], (cards) =>
      post("/rulings/api/corrections", { type: "missed", event: seq, cards }), { button: "add-missed",
      buttonText: "Add this play here", input: "missed-cards", placeholder: "cards, e.g. 9S 9H",
      aria: "cards played after #" + seq }) : null;
    if (missed) {
      missed.append(h("div", { class: "row" }, "or ", h("button", { type: "button", class: "add-missed-clear",
        onclick: () => post("/rulings/api/corrections", { type: "missed", event: seq, cleared: true }) },
        "The pot went here (burned or taken)")));
    }
    if (ev.type === "setup") return missed;
    const kids = [];
    if (ev.type === "missed") {
      const sel = h("select", { "aria-label": "who played #" + seq }, players.map((p) => h("option", {}, p)));
      kids.push(sel, h("button", { type: "button", onclick: () =>
        post("/rulings/api/corrections", { type: "played_by", event: seq, player: sel.value }) }, "Played by"));
    }
    if (ev.type === "cards_played") {
      kids.push(quickFixes(ev, r));
      kids.push(h("div", { class: "stack correct-cards" }, namer("c" + seq, cardsNow(ev, r), (cards) =>
        post("/rulings/api/corrections", { type: "correct", event: seq, cards }), { button: "fix-correct",
        buttonText: "Correct cards", input: "fix-cards", placeholder: "real cards, e.g. 9S 9H", aria: "real cards of #" + seq })));
      const sel = h("select", { "aria-label": "who played #" + seq }, players.map((p) => h("option", {}, p)));
      kids.push(sel, h("button", { type: "button", onclick: () =>
        post("/rulings/api/corrections", { type: "played_by", event: seq, player: sel.value }) }, "Played by"));
    }
    // an Ace (a play that gives the pot): who it went to, set or changed at any time, not only
    // while it waits; the game is replayed from there
    const ace = (r && r.outputs || []).find((o) => o.kind === "ruling" && (o.effects || []).includes("give_pot"));
    if (ace) {
      const fix = (r.fixes || []).filter((f) => f.type === "target").pop();
      const sel = h("select", { "aria-label": "who got the pot of #" + seq }, players.map((p) => h("option", {}, p)));
      if (fix) sel.value = fix.player;
      kids.push(sel, h("button", { type: "button", class: "set-target", onclick: () =>
        post("/rulings/api/corrections", { type: "target", event: seq, player: sel.value }) }, "Gets the pot"));
    }
    kids.push(h("button", { type: "button", class: "danger", onclick: () => {
      if (confirm("Void event #" + seq + "? It stays in the log, marked as not having happened.")) post("/rulings/api/corrections", { type: "void", event: seq });
    } }, "Void"));
    return [noteRow(seq, kids), missed];
  }

  /* One event's entry on the page. */
  function entry(r, entries, players, isVoid, inGame) {
    const ev = r.event;
    const conf = (ev.conf || []).length ? h("span", { class: "muted small" }, " read confidence " + ev.conf.map((c) => Math.round(c * 100) + "%").join(" ")) : null;
    return h("article", { class: "entry" + (isVoid ? " voided" : ""), id: "e" + ev.seq, "data-seq": ev.seq },
      h("div", { class: "head" }, h("b", {}, "#" + ev.seq + " "), describe(ev), conf,
        isVoid ? h("span", { class: "tag void" }, "void") : null,
        h("span", { class: "muted small when" }, " · " + who(ev))),
      doubt(ev, r.settled, inGame),
      seatHint(ev, r.outputs, players, inGame),
      unsure(ev, r.outputs.some((o) => o.kind === "ruling" && !(o.assumed && o.assumed.cards)), isVoid, inGame),
      r.outputs.map((o) => output(o, ev, entries)),
      evidence(ev),
      r.fixes.length ? h("div", { class: "fixes small" }, "Changed later: ",
        r.fixes.map((f) => h("div", {}, "#" + f.seq + " ", describe(f, ev), h("span", { class: "muted" }, " — " + who(f))))) : null,
      editor(ev, players, inGame, r));
  }

  /* Each event's entry as last drawn, and what it was drawn from. A new event changes one or
     two entries: only those are built again, the rest stay as they are (an open editor, a pick
     half made). Redrawing an evening's hundreds of entries on every event made a phone lag
     seconds behind the table. */
  const drawn = new Map();

  function render(entries, players) {
    // an editor open on an entry built again: re-opened with what the operator had typed
    const kept = {};
    box.querySelectorAll("details.editor[open]").forEach((d) => {
      kept[d.closest("article").dataset.seq] = [...d.querySelectorAll("input, select")].map((i) => i.value);
    });
    const voided = new Set(entries.filter((r) => r.event.type === "void").map((r) => r.event.event));
    // corrections name events of the current game only: from its setup on
    const gameStart = Math.max(0, ...entries.filter((r) => r.event.type === "setup").map((r) => r.event.seq));
    const nodes = entries.map((r) => {
      const seq = r.event.seq;
      const inGame = gameStart > 0 && seq >= gameStart;
      // a setup's "add the held plays" depends on the events that added them
      const added = r.event.type === "setup" && entries.some((e) => e.event.type === "missed" && e.event.event === seq);
      const key = JSON.stringify([r, voided.has(seq), inGame, added, players]);
      const old = drawn.get(seq);
      if (old && old.key === key) return old.node;
      const node = entry(r, entries, players, voided.has(seq), inGame);
      drawn.set(seq, { key, node });
      return node;
    });
    const seqs = new Set(entries.map((r) => r.event.seq));
    for (const seq of [...drawn.keys()]) if (!seqs.has(seq)) drawn.delete(seq);
    nodes.forEach((n, i) => { if (box.children[i] !== n) box.insertBefore(n, box.children[i] || null); });
    while (box.children.length > nodes.length) box.lastElementChild.remove();
    for (const [seq, values] of Object.entries(kept)) {
      const d = box.querySelector("#e" + seq + " details.editor");
      if (!d || d.open) continue;  // kept as it was
      d.fill();
      d.open = true;
      d.querySelectorAll("input, select").forEach((i, k) => { if (values[k] !== undefined) i.value = values[k]; });
    }
  }

  /* The current game's events only, until someone asks for the earlier games' (a dispute
     about last game, its photos): an evening is thousands of events. */
  let everything = false;
  const earlierBox = h("div", { class: "row earlier", hidden: true });
  box.after(earlierBox);

  function earlier(count) {
    earlierBox.hidden = everything || !count;
    earlierBox.replaceChildren(h("span", { class: "muted small" }, count + " event(s) of earlier games are not shown. "),
      h("button", { type: "button", class: "show-earlier", onclick: () => { everything = true; refresh(); } },
        "Show them"));
  }

  let asked = 0;
  async function refresh() {
    const n = ++asked;
    const d = await get("/rulings/data.json" + (everything ? "" : "?from=game"));
    if (n !== asked) return;  // a newer update's answer is on its way: an older one would undo it
    const target = !shown && location.hash && /^#e\d+$/.test(location.hash) ? +location.hash.slice(2) : 0;
    if (target && !everything && target <= d.earlier) { everything = true; refresh(); return; }  // a link to last game
    state = d.view;
    banner(document.getElementById("banner"), state.latest, false, state.last);
    const seatOf = (seq) => { const r = d.entries.find((e) => e.event.seq === seq); return r && r.event.meta && r.event.meta.seat; };
    document.getElementById("prompts").replaceChildren(...[masta.questionBox(state.table, true)].concat(
      ((state.table && state.table.prompts) || []).map((p) =>
        masta.promptBox(p, state.players || [], p.event ? seatOf(p.event) : null))).filter(Boolean));
    render(d.entries, state.players || []);
    earlier(d.earlier || 0);
    if (!shown && location.hash) {  // a link to one event (the live page's): shown once, on arrival
      const el = document.getElementById(location.hash.slice(1));
      if (el) el.scrollIntoView({ block: "start" });
    }
    shown = true;
    const hint = document.getElementById("teach-hint");  // the operator's page only
    if (hint) { hint.hidden = !d.teach_hint; hint.querySelector("span").textContent = d.teach_hint || ""; }
  }

  let shown = false;

  async function globalAct(type) {
    const player = document.getElementById("g-player").value;
    await post("/rulings/api/corrections", { type, player });
  }
  document.querySelectorAll("[data-global]").forEach((b) => b.addEventListener("click", () => globalAct(b.dataset.global)));
  const nb = document.getElementById("g-note-btn");
  if (nb) nb.addEventListener("click", () => post("/rulings/api/corrections", { type: "note", text: document.getElementById("g-note").value }));

  banner(document.getElementById("banner"), state.latest, false, state.last);
  refresh();
  // (re)connected: what was pushed while the stream was down (a phone asleep, the server
  // restarted) is fetched whole, not waited for until the next event
  listen({ update: (m) => { banner(document.getElementById("banner"), m.view.latest, true, m.view.last); refresh(); },
    open: refresh });
})();
