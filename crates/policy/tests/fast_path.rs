//! The fast path against tree-sitter: on every script the fast path accepts, both give exactly the same commands,
//! words, standard input, functions and assignments; generated scripts of every shape it handles, and the same
//! scripts with bytes inserted and deleted, so that it must give up where it does not understand.

use shellring_policy::{fast_commands, simple_commands, tree_sitter_commands};

/// A small deterministic generator (xorshift64*), so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const NAMES: &[&str] = &[
    "ls", "rm", "git", "npm", "echo", "cat", "grep", "timeout", "bash", "env", "xargs", "find",
    "tee", "tail", "sort", "wc", "cd", "make", "cargo", "/bin/rm", "./run.sh", "'rm'", "\"git\"",
    "r\\m", "$CMD", "\"$X\"", "true", "set", "log", "test", "5",
];
const ARGS: &[&str] = &[
    "-rf",
    "x",
    "push",
    "--force",
    "-f",
    "origin",
    "main",
    "\"a b\"",
    "'c d'",
    "$HOME",
    "\"${X}\"",
    "\"$(date +%T)\"",
    "$(ls)",
    "*.ts",
    "~/x",
    "a=b",
    "--opt=val",
    "--name=\"v\"",
    "a'b'c",
    "\"a\\\"b\"",
    "\\$x",
    "a\\ b",
    "-5",
    "1",
    "src/",
    "\"$f\"",
    "pkg${i}/src/*.ts",
    "\"[$(date)] $*\"",
    "${X:-d}",
    "$1",
    "$@",
    "\"$@\"",
    "\"\"",
    "''",
    "a.b",
    "+%T",
    "-c",
    "'rm x'",
    "\"rm \\$x\"",
    "é",
    "\"$(echo $(rm x))\"",
    "%s",
    "a:b",
    "-",
    "${#x}",
    "${x%%.ts}",
    "\"${1:-none}\"",
    "ab\\\ncd",
];
/// Words the fast path gives up on (tree-sitter reads them its own way).
const EXOTIC: &[&str] = &[
    "$'a'",
    "{a,b}",
    "a[1]",
    "`id`",
    "$((1+2))",
    "<(ls)",
    "@x",
    "!x",
    "${x:-$(rm)}",
    "$\"t\"",
    "\"$ \"",
    "a>b",
];
const REDIRECTS: &[&str] = &[
    "2>&1",
    ">/dev/null",
    "> out",
    ">> log",
    "2>/dev/null",
    "&> x",
    ">&2",
    "< in",
    "<in",
    "2> \"$(rm x)\"",
    "1>x",
    ">$f",
    "< \"$f\"",
];
const ASSIGN: &[&str] = &[
    "X=1",
    "FOO=bar",
    "A=\"a b\"",
    "count=$(ls | wc -l)",
    "E=",
    "P=$HOME/x",
    "Q='q'",
    "I=$(rm x)",
];

fn simple(rng: &mut Rng, depth: usize) -> String {
    let mut parts = Vec::new();
    for _ in 0..rng.below(3).saturating_sub(1) {
        parts.push(rng.pick(ASSIGN).to_owned());
    }
    if parts.is_empty() || rng.chance(85) {
        parts.push(rng.pick(NAMES).to_owned());
        for _ in 0..rng.below(5) {
            if depth < 3 && rng.chance(8) {
                parts.push(format!("\"$({})\"", script(rng, depth + 1)));
            } else if rng.chance(3) {
                parts.push(rng.pick(EXOTIC).to_owned());
            } else {
                parts.push(rng.pick(ARGS).to_owned());
            }
        }
        for _ in 0..rng.below(3).saturating_sub(1) {
            parts.push(rng.pick(REDIRECTS).to_owned());
        }
    }
    parts.join(" ")
}

fn compound(rng: &mut Rng, depth: usize) -> String {
    if depth >= 3 {
        return simple(rng, depth);
    }
    let inner = |rng: &mut Rng| script(rng, depth + 1);
    match rng.below(10) {
        0 => format!("({})", inner(rng)),
        1 => format!("{{ {}; }}", inner(rng)),
        2 => format!("if {}; then {}; fi", inner(rng), inner(rng)),
        3 => format!(
            "if {}; then\n  {}\nelif {}; then {}; else {}; fi",
            inner(rng),
            inner(rng),
            inner(rng),
            inner(rng),
            inner(rng)
        ),
        4 => format!(
            "for f in {} {}; do {}; done",
            rng.pick(ARGS),
            rng.pick(ARGS),
            inner(rng)
        ),
        5 => format!("while {}; do\n{}\ndone", inner(rng), inner(rng)),
        6 => format!("until {}; do {}; done", inner(rng), inner(rng)),
        7 => format!("f{}() {{ {}; }}", rng.below(3), inner(rng)),
        8 => format!(
            "[ {} ] && {}",
            rng.pick(&[
                "-d \"pkg0\"",
                "-n \"$x\"",
                "\"$a\" = b",
                "-f x",
                "x",
                "$(rm x) = y",
                "-z"
            ]),
            inner(rng)
        ),
        _ => simple(rng, depth),
    }
}

fn script(rng: &mut Rng, depth: usize) -> String {
    let mut out = String::new();
    for i in 0..1 + rng.below(3) {
        if i > 0 {
            out.push_str(rng.pick(&[
                "; ",
                "\n",
                " && ",
                " || ",
                " | ",
                " & ",
                "\n# note\n",
                " |\n  ",
            ]));
        }
        out.push_str(&if rng.chance(30) {
            compound(rng, depth)
        } else {
            simple(rng, depth)
        });
    }
    out
}

/// Inserts or deletes a few bytes: the fast path must give up, or still agree.
fn perturb(rng: &mut Rng, script: &str) -> String {
    let mut bytes: Vec<char> = script.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(bytes.len() + 1);
        if rng.chance(50) && at < bytes.len() {
            bytes.remove(at);
        } else {
            let c = rng.pick(&[
                ";", "&", "|", "(", ")", "{", "}", "'", "\"", "$", "\\", "\n", " ", "#", ">", "<",
                "`", "=", "!", "*", "[", "]", "fi", "do", "x",
            ]);
            for (k, ch) in c.chars().enumerate() {
                bytes.insert((at + k).min(bytes.len()), ch);
            }
        }
    }
    bytes.into_iter().collect()
}

fn agree(script: &str) -> bool {
    match fast_commands(script) {
        Some(fast) => {
            let full = tree_sitter_commands(script);
            assert_eq!(
                fast, full,
                "the fast path and tree-sitter disagree on {script:?}"
            );
            true
        }
        None => false,
    }
}

#[test]
fn generated_scripts_agree_with_tree_sitter() {
    let mut accepted = 0;
    let mut perturbed_accepted = 0;
    // More with SHELLRING_FAST_PATH_SEEDS for a deeper search.
    let total: u64 = std::env::var("SHELLRING_FAST_PATH_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    for seed in 1..=total {
        let mut rng = Rng(seed * 0x9E37_79B9_7F4A_7C15);
        let script = script(&mut rng, 0);
        if agree(&script) {
            accepted += 1;
        }
        if agree(&perturb(&mut rng, &script)) {
            perturbed_accepted += 1;
        }
    }
    // The generator must exercise the fast path, not only its refusals.
    assert!(
        accepted > total as usize / 4,
        "the fast path accepted only {accepted} of {total} scripts"
    );
    assert!(
        perturbed_accepted > total as usize / 20,
        "only {perturbed_accepted} perturbed scripts accepted"
    );
}

#[test]
fn the_benchmark_script_takes_the_fast_path() {
    let mut lines = vec![
        "set -euo pipefail".to_owned(),
        "log() { echo \"[$(date +%T)] $*\" >&2; }".to_owned(),
    ];
    for i in 0..40 {
        lines.push(format!("if [ -d \"pkg{i}\" ]; then"));
        lines.push(format!("  log \"building pkg{i}\""));
        lines.push(format!(
            "  (cd \"pkg{i}\" && npm test 2>&1 | tee \"../logs/pkg{i}.log\" | tail -5)"
        ));
        lines.push(format!("  for f in pkg{i}/src/*.ts; do grep -c \"TODO\" \"$f\" || true; done | sort -n | tail -1"));
        lines.push(format!("  count=$(find \"pkg{i}\" -name '*.ts' | wc -l)"));
        lines.push("fi".to_owned());
    }
    let script = lines.join("\n");
    assert!(agree(&script));
    assert_eq!(simple_commands(&script), tree_sitter_commands(&script));
}

#[test]
fn what_it_does_not_model_goes_to_tree_sitter() {
    for script in [
        "cat <<E\nrm x\nE",
        "bash <<< 'rm x'",
        "echo `rm x`",
        "case x in x) rm x;; esac",
        "git >log push",
        "bash 0<f",
        "echo $((1+2))",
        "diff <(ls) x",
        "[[ -n x ]]",
        "export A=1",
        "a=(1 2)",
        "echo {a,b}",
        "! rm x",
        "ls |& cat",
        "f() { ls; } > x",
        "time ls",
        "coproc ls",
        "echo a >x b",
        "select x in a; do :; done",
        "echo $'a'",
    ] {
        assert!(
            fast_commands(script).is_none(),
            "{script:?} should go to tree-sitter"
        );
    }
}

/// Shapes tree-sitter reads differently from bash (the walk fails closed or repairs them); the fast path must not
/// answer for them, or it would allow what the full parse asks about.
#[test]
fn the_grammar_s_misreadings_go_to_tree_sitter() {
    for script in [
        "ls | cat | cat\nrm x >/dev/null",
        "a|b|c\nd && e",
        "a|b|c\nX=1\nfi >f",
        "if x; then\n a | b | c\nelif d 2>&1; then e; fi",
        "while a;do\nb|c|d\ndone|e\nuntil f <g;do h;done",
        "a|b|c\n$(f(){ x;}\ny) >u",
        "a|b|c\n(d; e) >f",
        "echo hi\n\\rm x",
        "git \"\"\\push",
        "git pu\\\nsh",
        "Q=1 P=1\nt",
        "A=\"a\"b$1 x",
        "make a - 2>&1",
        "a =='c'",
        "--opt=val x",
        "5=x ls",
        "if true; then fi'rm' x; fi",
        "echo $X\\ y",
        "x >&2x",
        "[ -\\d x ]",
        "${:-d}",
        "log@x",
        "[ x= ] && y",
    ] {
        assert!(
            fast_commands(script).is_none(),
            "{script:?} should go to tree-sitter"
        );
    }
}
