//! The tree walk: one parse, then every `command` node anywhere in the tree becomes a [`SimpleCommand`].

use std::cell::RefCell;

use tree_sitter::{Node, Parser};

use crate::literal::literal;

/// One simple command as bash would run it: its words after any leading assignments and without redirections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command name and its arguments; `None` where a word is not a literal.
    pub words: Vec<Option<String>>,
    /// The command's source text, for messages.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedScript {
    /// In source order (an enclosing command before the commands substituted into it).
    pub commands: Vec<SimpleCommand>,
    /// The grammar could not parse some part of the script, so the list may miss commands.
    pub error: bool,
    /// Names of the functions the script defines (their bodies are listed like any other commands).
    pub functions: Vec<String>,
}

thread_local! {
    // A parser is costly to create relative to parsing a one-line command: keep one per thread.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `script` and lists its simple commands.
///
/// # Errors
/// None: a script the grammar cannot parse yields what it could read and `error: true`.
pub fn simple_commands(script: &str) -> ParsedScript {
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
            commands: Vec::new(),
            error: true,
            functions: Vec::new(),
        },
    }
}

fn collect(root: Node, src: &[u8]) -> ParsedScript {
    let mut commands = Vec::new();
    let mut functions = Vec::new();
    let mut error = root.has_error();
    // One cursor walks the whole tree in source order (a node before its children), allocating nothing per node.
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        match node.kind() {
            // An empty command is one the parser's error recovery invented; `error` already tells.
            "command" if node.start_byte() == node.end_byte() => {}
            "command" => commands.push(command(node, src)),
            "function_definition" => {
                if let Some(name) = node
                    .child_by_field_name("name")
                    .and_then(|n| n.utf8_text(src).ok())
                {
                    functions.push(name.to_owned());
                }
            }
            "heredoc_redirect" => error |= heredoc_backticks(node, src, &mut commands),
            _ => {}
        }
        if cursor.goto_first_child() {
            continue;
        }
        // No child: the next sibling, else the next sibling of the nearest ancestor that has one.
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return ParsedScript {
                    commands,
                    error,
                    functions,
                };
            }
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
                    let parsed = simple_commands(&inner);
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

fn command(node: Node, src: &[u8]) -> SimpleCommand {
    let mut words = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            match cursor.field_name() {
                Some("name") | Some("argument") => words.push(literal(child, src)),
                // Assignments and redirections are not words of the command; their substitutions are
                // found by the walk like any other.
                _ => {}
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    let text = node.utf8_text(src).unwrap_or_default().to_owned();
    SimpleCommand { words, text }
}
