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
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let parser = slot.get_or_insert_with(|| {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .expect("the bundled bash grammar matches the tree-sitter version it is pinned with");
            parser
        });
        match parser.parse(script, None) {
            Some(tree) => collect(tree.root_node(), script.as_bytes()),
            // Only a cancellation or timeout makes parse return None; neither is set, but fail closed anyway.
            None => ParsedScript { commands: Vec::new(), error: true },
        }
    })
}

fn collect(root: Node, src: &[u8]) -> ParsedScript {
    let mut commands = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "command" {
            commands.push(command(node, src));
        }
        // Children pushed in reverse, so they are visited in source order.
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    ParsedScript { commands, error: root.has_error() }
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
