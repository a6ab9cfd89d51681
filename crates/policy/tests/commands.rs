//! What the walk finds in scripts of each shape, and which words it calls literal.

use shellring_policy::simple_commands;

fn words(script: &str) -> Vec<Vec<Option<String>>> {
    simple_commands(script)
        .commands
        .into_iter()
        .map(|c| c.words)
        .collect()
}

fn lit(ws: &[&str]) -> Vec<Option<String>> {
    ws.iter().map(|w| Some((*w).to_owned())).collect()
}

#[test]
fn lists_and_pipelines() {
    assert_eq!(
        words("ls && rm -rf ~/x"),
        vec![
            lit(&["ls"]),
            vec![Some("rm".into()), Some("-rf".into()), None]
        ]
    );
    assert_eq!(
        words("a | b; c || d & e"),
        vec![
            lit(&["a"]),
            lit(&["b"]),
            lit(&["c"]),
            lit(&["d"]),
            lit(&["e"])
        ]
    );
}

#[test]
fn substitutions_and_bodies() {
    assert_eq!(words("echo $(rm x) `id`").len(), 3);
    assert_eq!(words("diff <(ls a) >(tee b)").len(), 3);
    assert_eq!(
        words("f() { rm x; }; if a; then b; elif c; else d; fi").len(),
        5
    );
    assert_eq!(
        words("for i in 1 2; do rm $i; done; while x; do y; done; case $a in b) c;; esac").len(),
        4
    );
    assert_eq!(words("( a ) && { b; }").len(), 2);
    assert_eq!(words("X=$(rm y) ls > $(touch z)").len(), 3);
}

#[test]
fn quotes_and_escapes() {
    assert_eq!(
        words("'rm' \"-rf\" \\/tmp r\\m $'\\x72m' \"a\"'b'c"),
        vec![lit(&["rm", "-rf", "/tmp", "rm", "rm", "abc"])]
    );
    assert_eq!(words("X=1 Y=2 git push"), vec![lit(&["git", "push"])]);
}

#[test]
fn expansions_are_not_literal() {
    assert_eq!(words("$CMD a"), vec![vec![None, Some("a".into())]]);
    assert_eq!(
        words("\"$X\" *.txt {a,b} ~/bin a[1]"),
        vec![vec![None, None, None, None, None]]
    );
    // `[ … ]` and `[[ … ]]` are test expressions in the grammar: nothing runs but what is substituted in them.
    assert_eq!(words("[ -f x ] && [[ $(rm y) ]]"), vec![lit(&["rm", "y"])]);
}

#[test]
fn heredocs_and_errors() {
    let parsed = simple_commands("cat <<EOF\n$(rm x)\nEOF\n");
    assert_eq!(parsed.commands.len(), 2);
    assert!(!parsed.error);
    let backquoted = simple_commands("cat <<EOF\n`rm x` and \\`not this\\`\nEOF\n");
    assert_eq!(
        backquoted
            .commands
            .iter()
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>(),
        vec!["cat", "rm x"]
    );
    assert_eq!(
        simple_commands("cat <<'EOF'\n`rm x`\nEOF\n").commands.len(),
        1
    );
    assert!(simple_commands("cat <<EOF\n`rm x\nEOF\n").error);
    assert!(simple_commands("ls && (").error);
    let open_pipe = simple_commands("ls |");
    assert!(open_pipe.error);
    assert_eq!(open_pipe.commands.len(), 1);
    assert_eq!(
        simple_commands("f() { ls; }; function g { :; }").functions,
        vec!["f", "g"]
    );
    assert!(simple_commands("").commands.is_empty());
}
