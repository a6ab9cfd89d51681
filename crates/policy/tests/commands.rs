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

/// The full (tree-sitter) parse, whatever the fast path would do.
fn full(script: &str) -> shellring_policy::ParsedScript {
    shellring_policy::tree_sitter_commands(script)
}

fn full_words(script: &str) -> Vec<Vec<Option<String>>> {
    full(script).commands.into_iter().map(|c| c.words).collect()
}

#[test]
fn standard_input_from_the_command_s_own_redirections() {
    use shellring_policy::Stdin;
    let stdin = |script: &str| full(script).commands[0].stdin.clone();
    assert_eq!(
        stdin("bash <<'E'\nrm x\nE\n"),
        Some(Stdin::Text("rm x\n".into()))
    );
    assert_eq!(
        stdin("bash <<E\nrm x\nE\n"),
        Some(Stdin::Text("rm x\n".into()))
    );
    assert_eq!(
        stdin("bash <<-E\n\trm x\n\tE\n"),
        Some(Stdin::Text("rm x\n".into()))
    );
    assert_eq!(stdin("bash <<E\nrm $x\nE\n"), Some(Stdin::Other));
    assert_eq!(stdin("bash <<< 'rm x'"), Some(Stdin::Text("rm x\n".into())));
    assert_eq!(stdin("bash <<< \"$x\""), Some(Stdin::Other));
    assert_eq!(
        stdin("sh < script.sh"),
        Some(Stdin::File("script.sh".into()))
    );
    assert_eq!(stdin("sh < $f"), Some(Stdin::Other));
    assert_eq!(stdin("sh 0<&3"), Some(Stdin::Other));
    assert_eq!(stdin("bash 2>/dev/null"), None);
    assert_eq!(stdin("bash 3<<< x"), None);
    // The last redirection of descriptor 0 wins.
    assert_eq!(stdin("bash <<< 'ls' < f"), Some(Stdin::File("f".into())));
    // `0<<<` reads as a word `0` and a redirection to the grammar: the word is the redirection's descriptor.
    let glued = full("sh 0<<< 'rm x'");
    assert_eq!(glued.commands[0].words, vec![Some("sh".to_owned())]);
    assert_eq!(glued.commands[0].stdin, Some(Stdin::Text("rm x\n".into())));
    // Redirections after a pipeline or a list belong to its last command.
    let piped = full("echo x | bash <<'E'\nrm y\nE\n");
    assert_eq!(piped.commands[1].stdin, Some(Stdin::Text("rm y\n".into())));
}

#[test]
fn words_filed_under_redirections_are_the_command_s() {
    assert_eq!(
        full_words("git >log push --force"),
        vec![lit(&["git", "push", "--force"])]
    );
    assert_eq!(
        full_words("env >/dev/null rm x"),
        vec![lit(&["env", "rm", "x"])]
    );
    assert_eq!(full_words("git 2>&1 push"), vec![lit(&["git", "push"])]);
    assert_eq!(full_words("cat <<E rm\nx\nE\n"), vec![lit(&["cat", "rm"])]);
    assert_eq!(
        full_words("a && git >x push"),
        vec![lit(&["a"]), lit(&["git", "push"])]
    );
    assert_eq!(
        full_words("echo a | git >x push | cat"),
        vec![lit(&["echo", "a"]), lit(&["git", "push"]), lit(&["cat"])]
    );
    // Words after a compound command's redirection go to no command: bash refuses them.
    assert!(full("{ ls; } >x rm").error);
}

#[test]
fn words_the_grammar_splits_or_drops() {
    // One word to bash, two nodes to the grammar, with nothing or a line continuation between.
    assert_eq!(full_words("git \"\"\\push"), vec![lit(&["git", "push"])]);
    assert_eq!(full_words("\"\"\\rm x"), vec![lit(&["rm", "x"])]);
    assert_eq!(full_words("git pu\\\nsh"), vec![lit(&["git", "push"])]);
    // What the grammar drops or runs together fails closed.
    for script in [
        "echo hi\n\\rm x",
        "ls | cat | cat\nrm x >/dev/null",
        "make a - 2>&1",
        "A=\"a\"b$1 rm x",
        "Q=1 P=1\nrm x",
    ] {
        assert!(full(script).error, "{script:?}");
    }
    // The grammar's own `==` token is no literal word: bash's `==c` is not taken at its word.
    assert_eq!(full_words("a =='c'"), vec![vec![Some("a".into()), None]]);
    // `--opt=x` and `5=x` are command names to bash, assignments to the grammar.
    assert_eq!(full_words("--opt=val"), vec![vec![None]]);
    assert_eq!(full_words("5=x ls"), vec![vec![None, Some("ls".into())]]);
}

#[test]
fn variables_the_script_sets() {
    let assigned = |script: &str| {
        full(script)
            .assigned
            .into_iter()
            .map(|a| (a.name, a.value))
            .collect::<Vec<_>>()
    };
    let some = |s: &str| Some(s.to_owned());
    assert_eq!(
        assigned("X=1 ls; Y=$(ls); Z="),
        vec![
            (some("X"), some("1")),
            (some("Y"), None),
            (some("Z"), some(""))
        ]
    );
    assert_eq!(
        assigned("export A B=2"),
        vec![(some("A"), None), (some("B"), some("2"))]
    );
    assert_eq!(
        assigned("declare -n r=BASH_ENV"),
        vec![(some("r"), some("BASH_ENV"))]
    );
    assert_eq!(assigned("local \"$n\"=1"), vec![(None, None)]);
    assert_eq!(
        assigned("for BASH_ENV in x; do :; done"),
        vec![(some("BASH_ENV"), None)]
    );
    assert_eq!(
        assigned("a[1]=x; X+=y"),
        vec![(some("a"), some("x")), (some("X"), None)]
    );
}

#[test]
fn tests_list_a_literal_subscript_bash_may_evaluate() {
    assert_eq!(
        full_words("[ -v 'a[$(rm x)]' ] && [[ $y -eq 'b[`ls`]' ]]"),
        vec![lit(&["[", "a[$(rm x)]"]), lit(&["[", "b[`ls`]"])]
    );
    assert_eq!(
        full_words("[ -n 'a[1]' ] && [[ x == '$(y)' ]]"),
        Vec::<Vec<Option<String>>>::new()
    );
    assert!(shellring_policy::fast_commands("[ 'a[$(rm x)]' ]").is_none());
}
