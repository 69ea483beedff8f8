"use strict";
// Each replay on the page: its data read, its section shown, its board drawn at a key.
// Everything from the data is set as text (textContent), never as markup.
(function () {
  var names = { m: "a move", n: "a new game", u: "undo", r: "resume", s: "save", "-": "" };

  function value(e) {
    return e === 0 ? "" : (BigInt(2) ** BigInt(e)).toString();
  }

  function exponents(cells) {
    var out = [];
    for (var i = 0; i < cells.length; i++) out.push(parseInt(cells[i], 36));
    return out;
  }

  function boardTable(cells, expected, caption, scoreText) {
    var e = exponents(cells);
    var other = expected && expected.length === cells.length ? exponents(expected) : null;
    var n = Math.round(Math.sqrt(e.length));
    var figure = document.createElement("figure");
    var cap = document.createElement("figcaption");
    cap.textContent = caption;
    figure.appendChild(cap);
    var table = document.createElement("table");
    table.className = "board";
    for (var r = 0; r < n; r++) {
      var tr = document.createElement("tr");
      for (var c = 0; c < n; c++) {
        var x = e[r * n + c];
        var td = document.createElement("td");
        td.className = "t" + x;
        td.textContent = value(x);
        if (other && other[r * n + c] !== x) {
          td.className += " diff";
          var mark = document.createElement("span");
          mark.className = "mark";
          mark.setAttribute("aria-label", "differs");
          mark.textContent = "*";
          td.appendChild(mark);
        }
        tr.appendChild(td);
      }
      table.appendChild(tr);
    }
    figure.appendChild(table);
    if (scoreText) {
      var score = document.createElement("p");
      score.className = "score";
      score.textContent = scoreText;
      figure.appendChild(score);
    }
    return figure;
  }

  function Replay(section) {
    this.section = section;
    this.data = JSON.parse(section.querySelector(".replay-data").textContent);
    this.at = 0;
    this.step = section.querySelector(".step");
    this.stage = section.querySelector(".stage");
    var self = this;
    section.querySelectorAll("button[data-go]").forEach(function (button) {
      button.addEventListener("click", function () {
        self.go(button.getAttribute("data-go"));
      });
    });
    section.addEventListener("keydown", function (event) {
      var to = {
        ArrowRight: "next",
        ArrowLeft: "prev",
        Home: "first",
        End: "last",
        PageDown: "next-finding",
        PageUp: "prev-finding",
      }[event.key];
      if (to && !event.altKey && !event.ctrlKey && !event.metaKey) {
        self.go(to);
        event.preventDefault();
      }
    });
    this.data.findings.forEach(function (finding) {
      var article = document.getElementById(finding.id);
      if (!article) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "show";
      button.textContent = "Show key " + finding.key + " in the replay";
      button.addEventListener("click", function () {
        self.show(finding.key);
        section.scrollIntoView();
        section.focus();
      });
      article.appendChild(button);
    });
    section.hidden = false;
    this.show(0);
  }

  Replay.prototype.go = function (to) {
    var d = this.data;
    var keys = d.keys.length;
    var at = this.at;
    if (to === "first") at = 0;
    else if (to === "last") at = keys;
    else if (to === "next") at = Math.min(keys, at + 1);
    else if (to === "prev") at = Math.max(0, at - 1);
    else if (to === "next-finding") {
      var later = d.findings.filter(function (f) { return f.key > at; });
      if (later.length) at = later[0].key;
    } else if (to === "prev-finding") {
      var earlier = d.findings.filter(function (f) { return f.key < at; });
      if (earlier.length) at = earlier[earlier.length - 1].key;
    }
    this.show(at);
  };

  // The replay after key `at` (0: before the first key).
  Replay.prototype.show = function (at) {
    var d = this.data;
    this.at = at;
    this.section.setAttribute("data-at", String(at));
    var taken = at === 0 ? 0 : d.taken[at - 1];
    var before = at <= 1 ? 0 : d.taken[at - 2];
    var board = taken > 0 ? taken - 1 : -1;
    var words;
    if (at === 0) {
      words = "Before the first key (" + d.all + " keys in all).";
    } else {
      var action = names[d.actions[at - 1]] || "";
      words = "Key " + at + " of " + d.all + ": '" + d.keys[at - 1] + "' (keys line " +
        d.lines[at - 1] + ")" + (action ? ", " + action : "") + ".";
      if (taken === before) words += " No board printed for this key: the last one is shown.";
    }
    var here = d.findings.filter(function (f) { return f.key === at; });
    this.stage.textContent = "";
    var p = this.step;
    p.textContent = words;
    var action = at > 0 ? d.actions[at - 1] : "-";
    p.className = "step" + (action === "u" || action === "r" ? " marked " + names[action] : "");
    if (board < 0) {
      var none = document.createElement("p");
      none.className = "none";
      none.textContent = "No board printed yet.";
      this.stage.appendChild(none);
    } else {
      var caption = "Board " + (board + 1) + " (transcript line " + d.at[board] + ")";
      var expected = here.length ? here[0].expected : null;
      var score = d.scores[board] === null ? "No score printed." : "Score: " + d.scores[board];
      this.stage.appendChild(boardTable(d.boards[board], expected, caption, score));
      if (expected) {
        this.stage.appendChild(boardTable(expected, d.boards[board], "What the rules allow", ""));
      }
    }
    here.forEach(function (finding) {
      var note = document.createElement("p");
      note.className = "found";
      var link = document.createElement("a");
      link.href = "#" + finding.id;
      link.textContent = "A finding here: " + finding.rule;
      note.appendChild(link);
      this.stage.appendChild(note);
    }, this);
  };

  document.querySelectorAll("section.replay").forEach(function (section) {
    try {
      new Replay(section);
    } catch (e) {
      section.hidden = true;
    }
  });
})();
