//! `--check-request`: one request frame read on stdin, printed as the runner decoded it (one JSON line, in the
//! host's own names), so a test can hold the host's encoder against this decoder field by field.

use crate::request::Request;

pub fn json(request: &Request) -> String {
    let plan = &request.plan;
    let [backend, path, network, isolation, view] = plan.words();
    let list = |items: &[String]| {
        format!(
            "[{}]",
            items
                .iter()
                .map(|i| string(i))
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    let env: Vec<String> = request
        .env
        .iter()
        .map(|(name, value)| format!("{}:{}", string(name), string(value)))
        .collect();
    let stdin = request.stdin.as_ref().map_or_else(
        || "null".to_string(),
        |bytes| string(&String::from_utf8_lossy(bytes)),
    );
    format!(
        "{{\"cwd\":{},\"plan\":{{\"backend\":{},\"bwrapPath\":{},\"network\":{},\"isolation\":{},\"view\":{},\"nproc\":{},\"writable\":{},\"hidden\":{},\"readable\":{},\"denied\":{},\"cgroups\":{},\"cgroupLimits\":{}}},\"command\":{},\"env\":{{{}}},\"stdin\":{}}}",
        string(&request.cwd),
        string(backend),
        string(path),
        string(network),
        string(isolation),
        string(view),
        plan.nproc.map_or_else(|| "null".to_string(), |n| n.to_string()),
        list(&plan.writable),
        list(&plan.hidden),
        list(&plan.readable),
        list(&plan.denied),
        list(&plan.cgroups),
        list(&plan.cgroup_limits),
        string(&plan.command),
        env.join(","),
        stdin
    )
}

/// A JSON string literal.
fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;

    #[test]
    fn prints_every_field_in_the_hosts_names() {
        let request = Request {
            cwd: "/w \"q\"".into(),
            plan: Plan {
                command: "echo\n".into(),
                nproc: Some(3),
                ..Plan::default()
            },
            env: vec![("A".into(), "b\\c".into())],
            stdin: None,
        };
        assert_eq!(
            json(&request),
            "{\"cwd\":\"/w \\\"q\\\"\",\"plan\":{\"backend\":\"none\",\"bwrapPath\":\"\",\"network\":\"allow\",\"isolation\":\"auto\",\"view\":\"host\",\"nproc\":3,\"writable\":[],\"hidden\":[],\"readable\":[],\"denied\":[],\"cgroups\":[],\"cgroupLimits\":[]},\"command\":\"echo\\u000a\",\"env\":{\"A\":\"b\\\\c\"},\"stdin\":null}"
        );
    }
}
