#!/usr/bin/env python3
"""Makes the guide's screenshots of a feedback page: a program with a planted fault (the test
suite's Python Power-11, which merges a merged tile again) refereed with --html, the page opened
in headless Chromium, the replay stepped to the first finding by its own button, and two parts
of it drawn as PNG: the first finding's two boards, and the replay at that finding.
Run from the repository with a release build and Debian's chromium:
`cargo build --release && python3 docs/screenshots/feedback.py target/release/power11`."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1"]

# What the page shows in each picture: the element kept, the window's size.
SHOTS = [
    ("feedback-finding.png", "run-1-finding-1", 720, 520),
    ("feedback-replay.png", "run-1-replay", 720, 560),
]

DRIVER = """<script>
document.querySelector("#run-1-finding-1 button.show").click();
var keep = document.getElementById("%s");
document.querySelector("main").replaceChildren(keep);
window.scrollTo(0, 0);
</script>"""


def main():
    power11 = os.path.abspath(sys.argv[1])
    program = os.path.join(ROOT, "tests", "programs", "power11.py")
    with tempfile.TemporaryDirectory() as work:
        keys = os.path.join(work, "keys.txt")
        with open(keys, "w") as f:
            f.write("h\n" + "l\nd\nr\nd\n" * 15 + "b\nq\nq\n")
        page = os.path.join(work, "page.html")
        subprocess.run([power11, "referee", "--run", "python3 %s --seed 3 --fault merge-twice"
                        % program, "--keys", keys, "--html", page],
                       cwd=work, stdout=subprocess.DEVNULL, check=False)
        html = open(page).read()
        for name, element, width, height in SHOTS:
            shown = os.path.join(work, name + ".html")
            with open(shown, "w") as f:
                f.write(html.replace("</body>", DRIVER % element + "</body>"))
            env = dict(os.environ, HOME=work)
            subprocess.run(["chromium"] + FLAGS + ["--user-data-dir=" + os.path.join(work, "u"),
                            "--window-size=%d,%d" % (width, height),
                            "--screenshot=" + os.path.join(HERE, name), "file://" + shown],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True)
            print(name)


if __name__ == "__main__":
    main()
