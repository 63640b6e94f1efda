//! The scenarios a check runs for each prompt a server lists (when it declares the prompts
//! capability): `prompts/get` with a value for every argument the prompt declares, answered
//! with messages whose roles and content blocks are what the schema allows (or refused with
//! a JSON-RPC error: the arguments are free text and a server may refuse a value), and, for a
//! prompt with required arguments, a `prompts/get` without them, which the specification
//! says should be refused with -32602. On a server that also declares completions, each
//! argument of a prompt (the first few) is asked `completion/complete`.

use serde_json::{Map, Value, json};

use super::cases::content_block_schema;

const PROMPTS_PAGE: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/server/prompts";
const COMPLETION_PAGE: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion";
const SCHEMA_TS: &str = "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2025-11-25/schema.ts";

/// The most prompts a check gets (the first listed): enough to meet every kind a server has,
/// few enough that a server listing hundreds is not asked for each.
pub const MAX_PROMPTS: usize = 16;

/// A `GetPromptResult`: `messages`, each a role (`user` or `assistant`) and one content block;
/// `description` a string when given.
pub fn get_prompt_result_schema() -> Value {
    json!({
        "type": "object",
        "required": ["messages"],
        "properties": {
            "description": {"type": "string"},
            "messages": {"type": "array", "items": {
                "type": "object",
                "required": ["role", "content"],
                "properties": {
                    "role": {"enum": ["user", "assistant"]},
                    "content": content_block_schema()
                }
            }}
        }
    })
}

/// The value given to an argument: free text naming it, as the arguments are strings.
fn value_for(argument: &str) -> Value {
    Value::String(format!("conformance {argument}"))
}

/// One scenario per listed prompt (the first [`MAX_PROMPTS`], each name once).
pub fn prompt_cases(prompts: &[Value]) -> Vec<Value> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for prompt in prompts {
        let Some(name) = prompt.get("name").and_then(Value::as_str) else {
            continue;
        };
        if seen.contains(&name) || seen.len() == MAX_PROMPTS {
            continue;
        }
        seen.push(name);
        out.push(prompt_case(name, prompt));
        if let Some(case) = completion_case(name, prompt) {
            out.push(case);
        }
    }
    out
}

/// The most arguments of one prompt asked completions for.
const MAX_COMPLETED_ARGUMENTS: usize = 4;

/// For a prompt with arguments, on a server declaring the completions capability:
/// `completion/complete` for each argument (the first few) with an empty typed value.
fn completion_case(name: &str, prompt: &Value) -> Option<Value> {
    let arguments: Vec<&str> = prompt
        .get("arguments")
        .and_then(Value::as_array)?
        .iter()
        .filter_map(|a| a.get("name")?.as_str())
        .take(MAX_COMPLETED_ARGUMENTS)
        .collect();
    if arguments.is_empty() {
        return None;
    }
    let requests = arguments
        .iter()
        .map(|argument| {
            (
                json!({"type": "ref/prompt", "name": name}),
                (*argument).to_string(),
                format!("complete the argument {argument} of {name}"),
            )
        })
        .collect();
    Some(completion_scenario(
        &format!("sweep/prompt/{name}/complete"),
        &["sweep", "prompts", "completions", "capability"],
        requests,
    ))
}

/// A scenario asking `completion/complete` for each `(ref, argument, label)` with an empty
/// typed value, on a server declaring the completions capability: each answered with at most
/// 100 string values (`total` a number, `hasMore` a boolean, where given) or a JSON-RPC
/// error. Prompt arguments and template variables are completed alike.
pub fn completion_scenario(
    scenario: &str,
    tags: &[&str],
    requests: Vec<(Value, String, String)>,
) -> Value {
    let completion = json!({
        "values": {"$type": "array", "$len": {"$lte": 100}, "$each": {"$type": "string"}},
        "total": {"$one_of": [{"$absent": true}, {"$type": "number"}]},
        "hasMore": {"$one_of": [{"$absent": true}, {"$type": "boolean"}]}
    });
    let mut steps = opening_if_declared("completions");
    for (reference, argument, label) in requests {
        steps.push(json!({"request": "completion/complete",
        "params": {"ref": reference,
                   "argument": {"name": argument, "value": ""}},
        "label": label,
        "expect": {"$one_of": [
            {"result": {"completion": completion}, "error": {"$absent": true}},
            {"error": {"code": {"$type": "integer"}, "message": {"$type": "string"}},
             "result": {"$absent": true}}
        ]}}));
    }
    json!({
        "name": scenario,
        "suite": "protocol",
        "level": "must",
        "tags": tags,
        "source": [
            {"document": COMPLETION_PAGE, "section": "Capabilities",
             "quote": "Servers that support completions MUST declare the completions capability:"},
            {"document": COMPLETION_PAGE, "section": "Completion Results",
             "quote": "Servers return an array of completion values ranked by relevance, with: Maximum 100 items per response Optional total number of available matches Boolean indicating if additional results exist"},
            {"document": SCHEMA_TS, "section": "CompleteResult",
             "quote": "completion: { values: string[]; total?: number; hasMore?: boolean; };"},
        ],
        "steps": steps,
    })
}

fn prompt_case(name: &str, prompt: &Value) -> Value {
    let arguments: Vec<(&str, bool)> = prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| {
            let arg = a.get("name")?.as_str()?;
            let required = a.get("required") == Some(&Value::Bool(true));
            Some((arg, required))
        })
        .collect();
    let answer = json!({"$schema": get_prompt_result_schema()});
    let mut steps = opening_if_declared("prompts");
    let mut params = json!({"name": name});
    if arguments.is_empty() {
        steps.push(
            json!({"request": "prompts/get", "params": params, "rounds": 4,
                          "label": format!("get {name}"),
                          "expect": {"result": answer, "error": {"$absent": true}}}),
        );
    } else {
        let given: Map<String, Value> = arguments
            .iter()
            .map(|(arg, _)| ((*arg).to_string(), value_for(arg)))
            .collect();
        params["arguments"] = Value::Object(given);
        steps.push(
            json!({"request": "prompts/get", "params": params, "rounds": 4,
            "label": format!("get {name} with a value for each of its arguments"),
            "expect": {"$one_of": [
                {"result": answer, "error": {"$absent": true}},
                {"error": {"code": {"$type": "integer"}, "message": {"$type": "string"}},
                 "result": {"$absent": true}}
            ]}}),
        );
    }
    if arguments.iter().any(|(_, required)| *required) {
        steps.push(json!({"request": "prompts/get",
                          "params": {"name": name, "arguments": {}},
                          "level": "should",
                          "label": format!("get {name} without its required arguments is refused with -32602"),
                          "expect": {"error": {"code": -32602}, "result": {"$absent": true}}}));
    }
    steps.push(json!({"request": "prompts/list", "params": {},
                      "label": "the server still answers",
                      "expect": {"result": {"prompts": {"$type": "array"}}}}));
    json!({
        "name": format!("sweep/prompt/{name}/get"),
        "suite": "protocol",
        "level": "must",
        "tags": ["sweep", "prompts", "capability"],
        "source": [
            {"document": PROMPTS_PAGE, "section": "Capabilities",
             "quote": "Servers that support prompts MUST declare the prompts capability during initialization:"},
            {"document": SCHEMA_TS, "section": "GetPromptResult, PromptMessage",
             "quote": "messages: PromptMessage[]; ... role: Role; content: ContentBlock;"},
            {"document": PROMPTS_PAGE, "section": "Error Handling",
             "quote": "Servers SHOULD return standard JSON-RPC errors for common failure cases: ... Missing required arguments: -32602 (Invalid params)"},
        ],
        "steps": steps,
    })
}

/// The first steps of a scenario judging what a server declares: the opening (its
/// capabilities saved), then a precondition that it declares `capability`; a server that
/// does not is not judged.
pub fn opening_if_declared(capability: &str) -> Vec<Value> {
    let declares = format!("the server declares the {capability} capability");
    vec![
        json!({"initialize": {}, "save": {"caps": "result.capabilities"}}),
        json!({"label": declares,
               "exec": {"program": "${conformance}", "args": ["probe", "--stdout", "${caps}"]},
               "skip_unless": declares,
               "expect": {"stdout": {"$json": {capability: {"$type": "object"}}}}}),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_prompt_is_asked_for_once_with_each_argument() {
        let prompts = vec![
            json!({"name": "plain"}),
            json!({"name": "greet", "arguments": [{"name": "who", "required": true}, {"name": "tone"}]}),
            json!({"name": "plain"}),
            json!({"description": "no name"}),
        ];
        let made = prompt_cases(&prompts);
        let names: Vec<&str> = made.iter().filter_map(|s| s["name"].as_str()).collect();
        assert_eq!(
            names,
            [
                "sweep/prompt/plain/get",
                "sweep/prompt/greet/get",
                "sweep/prompt/greet/complete"
            ]
        );
        let complete = made[2]["steps"].as_array().expect("steps");
        assert_eq!(
            complete.len(),
            4,
            "the opening, the precondition, one per argument"
        );
        let greet = made[1]["steps"].as_array().expect("steps");
        assert_eq!(greet[2]["params"]["arguments"]["who"], "conformance who");
        assert_eq!(greet[2]["params"]["arguments"]["tone"], "conformance tone");
        assert_eq!(
            greet[3]["level"], "should",
            "missing required arguments: a SHOULD"
        );
        // A prompt without required arguments has no refusal to check.
        let plain = made[0]["steps"].as_array().expect("steps");
        assert!(plain.iter().all(|s| s.get("level").is_none()));
    }

    #[test]
    fn a_server_listing_many_prompts_gets_the_first_few() {
        let prompts: Vec<Value> = (0..40).map(|i| json!({"name": format!("p{i}")})).collect();
        // None has arguments, so none is asked for completions.
        assert_eq!(prompt_cases(&prompts).len(), MAX_PROMPTS);
    }
}
