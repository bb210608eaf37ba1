//! A stub chat-completions server on 127.0.0.1 for the tests: it answers
//! each request with the next scripted response and records what it
//! received. Shared by the tools' and the CLI's HTTP tests (`#[path]`).
// each test binary uses a part of it
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// One scripted response: status, extra headers and body.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// A 200 chat completion with `content`, `finish_reason` and usage.
    pub fn completion(content: &str, finish_reason: &str, usage: (u64, u64)) -> Self {
        let body = serde_json::json!({
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "model": "stub-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1,
                      "total_tokens": usage.0 + usage.1}
        });
        Response {
            status: 200,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    /// An error status with an OpenAI-style error body.
    pub fn error(status: u16, message: &str) -> Self {
        Response {
            status,
            headers: Vec::new(),
            body: serde_json::json!({"error": {"message": message}}).to_string(),
        }
    }

    /// A 200 with any body.
    pub fn raw(status: u16, body: &str) -> Self {
        Response {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }
}

/// A request the stub received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("the request body is JSON")
    }
}

/// The server: its base URL and what it received.
pub struct Stub {
    pub base: String,
    pub received: Arc<Mutex<Vec<Received>>>,
    handle: Option<JoinHandle<()>>,
}

impl Stub {
    /// Serves `responses` in order, one per connection, then stops.
    pub fn start(responses: Vec<Response>) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        let handle = std::thread::spawn(move || {
            for response in responses {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                serve(stream, &response, &log);
            }
        });
        Stub {
            base,
            received,
            handle: Some(handle),
        }
    }

    /// What was received so far.
    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        // the thread ends after its last scripted response; do not wait
        // for connections that will never come
        drop(self.handle.take());
    }
}

/// Reads one request, records it (before answering, so that a client
/// that got its answer finds it recorded), and answers.
fn serve(stream: TcpStream, response: &Response, log: &Mutex<Vec<Received>>) -> Option<()> {
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    log.lock().unwrap().push(Received {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {} STUB\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        response.status,
        response.body.len()
    );
    for (k, v) in &response.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes()).ok()?;
    out.write_all(response.body.as_bytes()).ok()?;
    out.flush().ok()
}
