//! A simple command's standard input as its own redirections set it: a literal here-document or here-string, a
//! literal file, or something the checker cannot read statically.

use tree_sitter::Node;

use crate::literal::literal;
use crate::script::Stdin;

/// A redirection node with the descriptor the grammar left as the command's last argument (`bash 0<f` reads as
/// the word `0` followed by `<f`; bash reads it as a redirection of descriptor 0).
pub struct Redirect<'t> {
    pub node: Node<'t>,
    pub descriptor: Option<&'t str>,
}

/// What a `redirected_statement` adds to the simple command its redirections belong to: the redirections, and
/// the words the grammar files under them though bash passes them to the command (`git >log push`: a file_redirect
/// with destinations `log` and `push`; `cat <<E rm`: a heredoc_redirect with argument `rm`).
pub struct Attached<'t> {
    pub redirects: Vec<Node<'t>>,
    pub words: Vec<Node<'t>>,
}

/// The command a `redirected_statement`'s redirections belong to (for a pipeline or an `&&`/`||` list, its last
/// command, as bash binds them) and what they add to it. `Err` when words would go to no simple command.
pub fn attach<'t>(statement: Node<'t>) -> Result<Option<(usize, Attached<'t>)>, ()> {
    let mut target = match statement.child_by_field_name("body") {
        Some(body) => body,
        None => return Ok(None),
    };
    while matches!(target.kind(), "pipeline" | "list") {
        match target.named_child(target.named_child_count().saturating_sub(1) as u32) {
            Some(last) => target = last,
            None => break,
        }
    }
    let mut attached = Attached {
        redirects: Vec::new(),
        words: Vec::new(),
    };
    let mut cursor = statement.walk();
    for child in statement.children_by_field_name("redirect", &mut cursor) {
        flatten(child, &mut attached);
    }
    if target.kind() != "command" {
        return if attached.words.is_empty() {
            Ok(None)
        } else {
            Err(())
        };
    }
    Ok(Some((target.id(), attached)))
}

/// A redirection, the redirections a here-document's line goes on with, and the words they add.
pub fn flatten<'t>(node: Node<'t>, out: &mut Attached<'t>) {
    out.redirects.push(node);
    let mut cursor = node.walk();
    if !cursor.goto_first_child() {
        return;
    }
    let mut destinations = 0;
    loop {
        let child = cursor.node();
        match cursor.field_name() {
            Some("destination") => {
                destinations += 1;
                if destinations > 1 {
                    out.words.push(child);
                }
            }
            Some("argument") => out.words.push(child),
            Some("redirect") if node.kind() == "heredoc_redirect" => flatten(child, out),
            _ => {}
        }
        if !cursor.goto_next_sibling() {
            break;
        }
    }
}

/// The standard input the last redirection of descriptor 0 gives, if any redirects it.
pub fn stdin(redirects: &[Redirect], src: &[u8]) -> Option<Stdin> {
    redirects
        .iter()
        .rev()
        .find_map(|redirect| input(redirect, src))
}

/// What one redirection makes descriptor 0, or `None` when it redirects another descriptor.
fn input(redirect: &Redirect, src: &[u8]) -> Option<Stdin> {
    let node = redirect.node;
    let descriptor = redirect.descriptor.or_else(|| {
        node.child_by_field_name("descriptor")
            .and_then(|d| d.utf8_text(src).ok())
    });
    let operator = operator(node, src)?;
    let reads = operator.starts_with('<');
    match descriptor {
        Some("0") => {}
        None if reads => {}
        _ => return None,
    }
    Some(match node.kind() {
        "herestring_redirect" => {
            let mut cursor = node.walk();
            let word = node
                .named_children(&mut cursor)
                .filter(|child| child.kind() != "file_descriptor")
                .last();
            word.and_then(|word| literal(word, src))
                .map_or(Stdin::Other, |text| Stdin::Text(text + "\n"))
        }
        "heredoc_redirect" => heredoc(node, operator == "<<-", src),
        "file_redirect" if operator == "<" => node
            .child_by_field_name("destination")
            .and_then(|d| literal(d, src))
            .map_or(Stdin::Other, Stdin::File),
        _ => Stdin::Other,
    })
}

/// The redirection's operator token (`<`, `<<-`, `>&`, ...).
fn operator<'s>(node: Node, src: &'s [u8]) -> Option<&'s str> {
    let mut cursor = node.walk();
    let token = node.children(&mut cursor).find(|child| !child.is_named())?;
    token.utf8_text(src).ok()
}

/// A here-document's text: exact when its delimiter is quoted, or when its body holds nothing bash would expand.
fn heredoc(node: Node, strip_tabs: bool, src: &[u8]) -> Stdin {
    let mut cursor = node.walk();
    let mut quoted = false;
    let mut body = "";
    for child in node.children(&mut cursor) {
        let text = child.utf8_text(src).unwrap_or_default();
        match child.kind() {
            "heredoc_start" => quoted = text.contains(['\'', '"', '\\']),
            "heredoc_body" => body = text,
            _ => {}
        }
    }
    if !quoted && body.contains(['$', '`', '\\']) {
        return Stdin::Other;
    }
    if !strip_tabs {
        return Stdin::Text(body.to_owned());
    }
    let mut text = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        text.push_str(line.trim_start_matches('\t'));
    }
    Stdin::Text(text)
}
