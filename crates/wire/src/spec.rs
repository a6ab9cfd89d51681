//! Every format of this crate described as one JSON object (`shellring-runner --wire` prints it): each record's fields
//! in order with their kinds, the words of each enumerated field, the route's mark, the frames' kinds and header, the
//! status words and the failure codes and tokens. The host's side of every format is held against it field by field
//! (test/executor/wire.test.ts): a field added on either side fails there.

use crate::fields::Names;
use crate::json::{string, strings};
use crate::plan::{self, Plan};
use crate::request::Request;
use crate::route::{self, Route};
use crate::{control, frames, stage, status};

fn fields(record: impl FnOnce(&mut Names)) -> String {
    let mut names = Names::default();
    record(&mut names);
    let items: Vec<String> = names
        .0
        .iter()
        .map(|(name, kind)| format!("[{},{}]", string(name), string(kind.word())))
        .collect();
    format!("[{}]", items.join(","))
}

/// Words with their arguments, as the members of an object.
fn word_list(list: &[(&str, &[&str])]) -> String {
    let items: Vec<String> = list
        .iter()
        .map(|(word, args)| format!("{}:{}", string(word), strings(args.iter().copied())))
        .collect();
    items.join(",")
}

/// The description; `namespace_steps` are the runner's steps of making a command's namespaces, named in a
/// `namespace` failure.
pub fn json(namespace_steps: &[&str]) -> String {
    let words = format!(
        "{{\"backend\":{},\"network\":{},\"isolation\":{},\"view\":{}}}",
        strings(plan::BACKENDS.iter().copied()),
        strings(plan::NETWORKS.iter().copied()),
        strings(plan::ISOLATIONS.iter().copied()),
        strings(plan::VIEWS.iter().copied())
    );
    let kinds: Vec<String> = frames::KINDS
        .iter()
        .map(|(name, kind, to)| {
            let letter = char::from(*kind).to_string();
            format!("{}:[{},{}]", string(name), string(&letter), string(to))
        })
        .collect();

    let parts = [
        format!("\"request\":{}", fields(|n| Request::default().encode(n))),
        format!("\"sessionPlan\":{}", fields(|n| Plan::default().encode(n))),
        format!("\"planWords\":{words}"),
        format!(
            "\"route\":{{\"mark\":{},\"fields\":{}}}",
            route::MARK,
            fields(|n| Route::default().encode(n))
        ),
        format!(
            "\"frames\":{{\"header\":{},\"maxFrame\":{},\"kinds\":{{{}}}}}",
            frames::HEADER,
            frames::MAX_FRAME,
            kinds.join(",")
        ),
        format!("\"status\":{{{}}}", word_list(status::WORDS)),
        format!(
            "\"control\":{{\"words\":{{{}}},\"causes\":{},\"atTimeout\":{}}}",
            word_list(control::WORDS),
            strings(control::CAUSES.iter().copied()),
            strings(control::AT_TIMEOUT.iter().copied())
        ),
        format!("\"errorCodes\":{}", strings(stage::CODES.iter().copied())),
        format!("\"stages\":{}", strings(stage::ALL.iter().copied())),
        format!(
            "\"namespaceSteps\":{}",
            strings(namespace_steps.iter().copied())
        ),
    ];
    format!("{{{}}}", parts.join(","))
}
