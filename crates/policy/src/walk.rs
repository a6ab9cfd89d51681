//! The tree walk: one tree-sitter parse, then every `command` node anywhere in the tree becomes a
//! [`SimpleCommand`], and every variable the script sets an [`Assignment`].

use std::cell::RefCell;
use std::collections::HashMap;

use tree_sitter::{Node, Parser};

use crate::literal::{literal, may_hold_subscript};
use crate::redirect::{attach, flatten, stdin, Attached, Redirect};
use crate::script::{Assignment, ParsedScript, SimpleCommand};

thread_local! {
    // A parser is costly to create relative to parsing a one-line command: keep one per thread.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `script` with tree-sitter-bash and lists its simple commands.
///
/// # Errors
/// None: a script the grammar cannot parse yields what it could read and `error: true`.
pub fn tree_sitter_commands(script: &str) -> ParsedScript {
    // The parser is released before the walk: a heredoc's backquoted scripts are parsed in turn.
    let tree = PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let parser = slot.get_or_insert_with(|| {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .expect(
                    "the bundled bash grammar matches the tree-sitter version it is pinned with",
                );
            parser
        });
        parser.parse(script, None)
    });
    match tree {
        Some(tree) => collect(tree.root_node(), script.as_bytes()),
        // Only a cancellation or timeout makes parse return None; neither is set, but fail closed anyway.
        None => ParsedScript {
            error: true,
            ..ParsedScript::default()
        },
    }
}

fn collect(root: Node, src: &[u8]) -> ParsedScript {
    let mut out = ParsedScript {
        error: root.has_error(),
        ..ParsedScript::default()
    };
    // Redirections after a command, filed by the command they belong to; the walk meets the statement first.
    let mut attached: HashMap<usize, Attached> = HashMap::new();
    // One cursor walks the whole tree in source order (a node before its children), allocating nothing per node.
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        match node.kind() {
            // An empty command is one the parser's error recovery invented; `error` already tells.
            "command" if node.start_byte() == node.end_byte() => {}
            "command" => {
                let after = attached.remove(&node.id());
                let (command, merged) = command(node, after, src);
                out.error |= merged;
                out.commands.push(command);
            }
            "redirected_statement" => match attach(node) {
                Ok(Some((target, after))) => {
                    attached.insert(target, after);
                }
                Ok(None) => {}
                Err(()) => out.error = true,
            },
            "function_definition" => {
                if let Some(name) = node
                    .child_by_field_name("name")
                    .and_then(|n| n.utf8_text(src).ok())
                {
                    out.functions.push(name.to_owned());
                }
            }
            "heredoc_redirect" => out.error |= heredoc_backticks(node, src, &mut out.commands),
            "variable_assignment" => {
                // The grammar takes `--opt=x` and `5=x` for assignments; bash runs them as commands.
                if !valid_name(node, src) && node.parent().is_none_or(|p| p.kind() != "command") {
                    out.commands.push(SimpleCommand {
                        words: vec![None],
                        text: node.utf8_text(src).unwrap_or_default().to_owned(),
                        stdin: None,
                    });
                }
                out.assigned.push(assignment(node, src));
            }
            "declaration_command" => declared(node, src, &mut out.assigned),
            "test_command" => out.commands.extend(subscript_test(node, src)),
            "for_statement" => {
                if let Some(variable) = node.child_by_field_name("variable") {
                    out.assigned.push(Assignment {
                        name: variable.utf8_text(src).ok().map(str::to_owned),
                        value: None,
                    });
                }
            }
            _ => {}
        }
        if cursor.goto_first_child() {
            continue;
        }
        // No child: the next sibling, else the next sibling of the nearest ancestor that has one.
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// Whether bash reads the text from `end` to `start` as part of one word: nothing, or only line continuations
/// (`pu\<newline>sh` is `push` to bash; the grammar makes two words of it).
/// A test (`[ -v 'a[$(cmd)]' ]`, `[[ $x -eq 'a[$(cmd)]' ]]`) runs no command of its own, but a literal operand
/// may hold a subscript bash evaluates: the test is listed as `[` with its literal operands for the policy to judge.
fn subscript_test(node: Node, src: &[u8]) -> Option<SimpleCommand> {
    let mut words = vec![Some("[".to_owned())];
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(next) = stack.pop() {
        if matches!(
            next.kind(),
            "word" | "raw_string" | "string" | "ansi_c_string" | "concatenation"
        ) {
            words.extend(
                literal(next, src)
                    .filter(|text| may_hold_subscript(text))
                    .map(Some),
            );
            continue;
        }
        let children: Vec<Node> = next.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    (words.len() > 1).then(|| SimpleCommand {
        words,
        text: node.utf8_text(src).unwrap_or_default().to_owned(),
        stdin: None,
    })
}

fn joined(src: &[u8], end: usize, start: usize) -> bool {
    src.get(end..start)
        .is_some_and(|gap| gap.chunks(2).all(|pair| pair == b"\\\n"))
}

/// Whether an assignment's name is one bash takes for a variable (else the word is a command name).
fn valid_name(node: Node, src: &[u8]) -> bool {
    let Some(name) = node.child_by_field_name("name") else {
        return false;
    };
    let name = if name.kind() == "subscript" {
        match name.child_by_field_name("name") {
            Some(inner) => inner,
            None => return false,
        }
    } else {
        name
    };
    let text = name.utf8_text(src).unwrap_or_default().as_bytes();
    text.first()
        .is_some_and(|&c| c == b'_' || c.is_ascii_alphabetic())
        && text.iter().all(|&c| c == b'_' || c.is_ascii_alphanumeric())
}

/// `NAME=value`, `NAME+=value`, `NAME[i]=value`.
fn assignment(node: Node, src: &[u8]) -> Assignment {
    let name = node.child_by_field_name("name").and_then(|name| {
        let name = if name.kind() == "subscript" {
            name.child_by_field_name("name")?
        } else {
            name
        };
        name.utf8_text(src).ok().map(str::to_owned)
    });
    let appends = (0..node.child_count())
        .filter_map(|i| node.child(i))
        .any(|child| !child.is_named() && child.kind() == "+=");
    let value = match node.child_by_field_name("value") {
        _ if appends => None,
        Some(value) => literal(value, src),
        None => Some(String::new()),
    };
    Assignment { name, value }
}

/// The names `export`, `declare`, `local`, `readonly` and `typeset` set without an `=` the grammar sees
/// (`export NAME`, `declare "NAME=value"`); their `NAME=value` arguments are assignments the walk visits.
fn declared(node: Node, src: &[u8], out: &mut Vec<Assignment>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "variable_assignment" => {}
            "variable_name" => out.push(Assignment {
                name: child.utf8_text(src).ok().map(str::to_owned),
                value: None,
            }),
            _ => match literal(child, src) {
                Some(word) if word.starts_with(['-', '+']) => {}
                Some(word) => {
                    let (name, value) = match word.split_once('=') {
                        Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                        None => (word, None),
                    };
                    out.push(Assignment {
                        name: Some(name),
                        value,
                    });
                }
                None => out.push(Assignment {
                    name: None,
                    value: None,
                }),
            },
        }
    }
}

/// The grammar leaves backquoted substitutions in an unquoted heredoc's body as text, though bash runs them:
/// each one's script is parsed here. Returns true when a backquote is left open (the body cannot be read exactly).
fn heredoc_backticks(node: Node, src: &[u8], commands: &mut Vec<SimpleCommand>) -> bool {
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    let quoted = children.iter().any(|child| {
        child.kind() == "heredoc_start"
            && child
                .utf8_text(src)
                .is_ok_and(|t| t.contains(['\'', '"', '\\']))
    });
    if quoted {
        return false;
    }
    let mut open = false;
    for body in children
        .iter()
        .filter(|child| child.kind() == "heredoc_body")
    {
        let text = body.utf8_text(src).unwrap_or_default();
        let mut inner = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    let next = chars.next();
                    if open {
                        inner.push(c);
                        inner.extend(next);
                    }
                }
                '`' if open => {
                    let parsed = tree_sitter_commands(&inner);
                    commands.extend(parsed.commands);
                    if parsed.error {
                        return true;
                    }
                    inner.clear();
                    open = false;
                }
                '`' => open = true,
                _ if open => inner.push(c),
                _ => {}
            }
        }
    }
    open
}

/// Whether text between two parts of a command holds more than blanks and line continuations: the grammar then
/// dropped something bash reads (a `==`, a `-` before `2>`, a line break that ends the command).
fn dropped(gap: &[u8]) -> bool {
    let mut i = 0;
    while i < gap.len() {
        match gap[i] {
            b' ' | b'\t' => i += 1,
            b'\\' if gap.get(i + 1) == Some(&b'\n') => i += 2,
            _ => return true,
        }
    }
    false
}

/// A bare newline: not escaped by an odd run of backslashes.
fn bare_newline(text: &[u8]) -> bool {
    text.iter().enumerate().any(|(i, &c)| {
        c == b'\n' && text[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0
    })
}

/// The command, and whether the grammar ran a line break into it: bash ends the command there (`echo hi` then
/// `\rm x` on the next line reads as one `echo` with an argument `\n\rm`), so what follows cannot be trusted.
fn command<'t>(
    node: Node<'t>,
    after: Option<Attached<'t>>,
    src: &'t [u8],
) -> (SimpleCommand, bool) {
    let mut merged = false;
    let mut previous_end: Option<usize> = None;
    let mut previous_glued = false;
    let mut words = Vec::new();
    let mut own = Attached {
        redirects: Vec::new(),
        words: Vec::new(),
    };
    let mut last_number: Option<(Node, usize)> = None;
    let mut word_end = None;
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            let gap = previous_end.map_or(&[][..], |end| &src[end..child.start_byte()]);
            merged |= dropped(gap)
                || (child.kind() == "word"
                    && bare_newline(&src[child.start_byte()..child.end_byte()]));
            // Nothing between an assignment or a redirection and the next part: bash reads one word there, the
            // grammar two (`A="a"b$1 x` has the command `1` to it, `x` to bash).
            merged |= gap.is_empty()
                && previous_glued
                && cursor.field_name().is_none_or(|f| f != "redirect");
            previous_glued = matches!(child.kind(), "variable_assignment")
                || cursor.field_name() == Some("redirect");
            previous_end = Some(child.end_byte());
            match cursor.field_name() {
                // `""\push` is one word to bash; the grammar makes two of it, with no gap between.
                Some("name") | Some("argument")
                    if word_end.is_some_and(|end| joined(src, end, child.start_byte())) =>
                {
                    let joined = words.pop().flatten().zip(literal(child, src));
                    words.push(joined.map(|(a, b)| a + b.as_str()));
                    word_end = Some(child.end_byte());
                    last_number = None;
                }
                Some("name") | Some("argument") => {
                    last_number = (child.kind() == "number").then_some((child, words.len()));
                    words.push(literal(child, src));
                    word_end = Some(child.end_byte());
                }
                None if child.kind() == "variable_assignment" && !valid_name(child, src) => {
                    words.push(None);
                }
                Some("redirect") => {
                    word_end = None;
                    // Words the grammar files under a redirection stand where the redirection is.
                    let before = own.words.len();
                    flatten(child, &mut own);
                    words.extend(own.words[before..].iter().map(|word| literal(*word, src)));
                }
                // Assignments are not words of the command; their substitutions are found by the walk.
                _ => {}
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    let mut redirects = own.redirects;
    if let Some(after) = after {
        if let Some(first) = after.redirects.first() {
            merged |= dropped(&src[node.end_byte().min(first.start_byte())..first.start_byte()]);
        }
        words.extend(after.words.iter().map(|word| literal(*word, src)));
        redirects.extend(after.redirects);
    }
    let mut list: Vec<Redirect> = redirects
        .into_iter()
        .map(|node| Redirect {
            node,
            descriptor: None,
        })
        .collect();
    // `bash 0<f`: the grammar reads `0` as an argument right before a redirection that starts where it ends.
    if let Some((number, index)) = last_number {
        let glued = list
            .iter_mut()
            .find(|r| r.node.start_byte() == number.end_byte());
        if let Some(redirect) = glued {
            redirect.descriptor = number.utf8_text(src).ok();
            words.remove(index);
        }
    }
    let text = node.utf8_text(src).unwrap_or_default().to_owned();
    let command = SimpleCommand {
        words,
        text,
        stdin: stdin(&list, src),
    };
    (command, merged)
}
