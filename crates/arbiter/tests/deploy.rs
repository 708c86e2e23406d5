//! The deployment files against what they run, so that they cannot drift silently: the
//! Kubernetes example (`deploy/kubernetes/*.yaml`) parses, its parts name each other
//! (Secrets, Service, ports, the worker's server URL, the autoscaler's target, the
//! cache folder of the image), every flag it gives `arbiter serve` and `arbiter worker`
//! is in that command's `--help`, and the autoscaler's metrics are the ones the server's
//! `/metrics` exports; the Containerfile installs what `scripts/build-image` builds and
//! starts `arbiter`. The image itself is not built here (minutes of mmdebstrap and
//! podman): docs/distributed.md says what was run by hand.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use yaml_rust2::{Yaml, YamlLoader};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");
const SAFETY: Duration = Duration::from_secs(60);

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy")
}

/// The file names of the Kubernetes example's manifests (`.yaml`, but the kustomization
/// that lists them), sorted.
fn manifests() -> Vec<String> {
    let dir = deploy().join("kubernetes");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("deploy/kubernetes")
        .map(|entry| entry.expect("an entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".yaml") && name != KUSTOMIZATION)
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no manifests in {}", dir.display());
    files
}

const KUSTOMIZATION: &str = "kustomization.yaml";

fn load(name: &str) -> Vec<Yaml> {
    let text = std::fs::read_to_string(deploy().join("kubernetes").join(name)).expect("a manifest");
    YamlLoader::load_from_str(&text).unwrap_or_else(|err| panic!("{name}: not YAML: {err}"))
}

/// Every document of every manifest of the Kubernetes example, with its file's name.
fn documents() -> Vec<(String, Yaml)> {
    let mut documents = Vec::new();
    for name in manifests() {
        for doc in load(&name) {
            documents.push((name.clone(), doc));
        }
    }
    documents
}

fn text<'a>(node: &'a Yaml, what: &str) -> &'a str {
    node.as_str().unwrap_or_else(|| panic!("{what} is not a string: {node:?}"))
}

fn list(node: &Yaml) -> &[Yaml] {
    node.as_vec().map(Vec::as_slice).unwrap_or(&[])
}

fn name(doc: &Yaml) -> &str {
    text(&doc["metadata"]["name"], "metadata.name")
}

/// The documents of one kind, by name.
fn of_kind<'a>(documents: &'a [(String, Yaml)], kind: &str) -> BTreeMap<&'a str, &'a Yaml> {
    documents.iter().filter(|(_, doc)| doc["kind"].as_str() == Some(kind)).map(|(_, doc)| (name(doc), doc)).collect()
}

/// A container's arguments, as strings (a number in YAML would reach the program as text
/// only if quoted: the test wants them quoted).
fn args(container: &Yaml) -> Vec<String> {
    list(&container["args"]).iter().map(|arg| text(arg, "an argument (quote numbers)").to_string()).collect()
}

/// The value after `flag` in `args`.
fn value_of<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter().position(|arg| arg == flag).and_then(|at| args.get(at + 1)).map(String::as_str)
}

/// Every container of every Deployment: (Deployment, container).
fn containers(documents: &[(String, Yaml)]) -> Vec<(&str, &Yaml)> {
    let mut containers = Vec::new();
    for (deployment, doc) in of_kind(documents, "Deployment") {
        let pod = &doc["spec"]["template"]["spec"];
        assert!(!list(&pod["containers"]).is_empty(), "Deployment {deployment} has no containers");
        for container in list(&pod["containers"]) {
            containers.push((deployment, container));
        }
    }
    containers
}

/// The one Deployment whose container runs `arbiter SUBCOMMAND`, with that container.
fn running<'a>(documents: &'a [(String, Yaml)], subcommand: &str) -> (&'a str, &'a Yaml) {
    let found: Vec<_> =
        containers(documents).into_iter().filter(|(_, c)| args(c).first().map(String::as_str) == Some(subcommand)).collect();
    assert_eq!(found.len(), 1, "one Deployment runs `arbiter {subcommand}`");
    found[0]
}

/// Whether a `--help` text offers `flag` (`--jobs`, `-j`): as a word, not inside another
/// flag (`--sandbox` is not `--no-sandbox`).
fn offers(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(at, _)| {
        let before = help[..at].chars().next_back();
        let after = help[at + flag.len()..].chars().next();
        before.is_none_or(|c| c.is_whitespace() || c == '[' || c == ',')
            && after.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    })
}

fn help(subcommand: &str) -> String {
    let out = Command::new(ARBITER).args([subcommand, "--help"]).output().expect("arbiter runs");
    assert!(out.status.success(), "`arbiter {subcommand}` is not a command: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_flag_of_the_kubernetes_example_is_one_the_commands_have() {
    let documents = documents();
    for (deployment, container) in containers(&documents) {
        let args = args(container);
        let subcommand = args.first().unwrap_or_else(|| panic!("Deployment {deployment}: no arguments (a command of arbiter)"));
        let help = help(subcommand);
        for flag in args.iter().filter(|arg| arg.starts_with('-')) {
            assert!(
                offers(&help, flag),
                "the Kubernetes example uses `{subcommand} {flag}`, which arbiter does not have (renamed or removed?)"
            );
        }
        // `$(NAME)` in an argument is the container's variable NAME (Kubernetes expands
        // it): each must be defined, or the program gets the text `$(NAME)`.
        let env: Vec<&str> = list(&container["env"]).iter().map(|var| text(&var["name"], "env name")).collect();
        for arg in &args {
            if let Some(var) = arg.strip_prefix("$(").and_then(|rest| rest.strip_suffix(')')) {
                assert!(env.contains(&var), "Deployment {deployment}: {arg} is not one of its variables {env:?}");
            }
        }
    }
}

#[test]
fn the_kubernetes_example_holds_together() {
    let documents = documents();
    let expected = [
        ("Secret", "v1"),
        ("PersistentVolumeClaim", "v1"),
        ("Service", "v1"),
        ("Deployment", "apps/v1"),
        ("ScaledObject", "keda.sh/v1alpha1"),
    ];
    for (file, doc) in &documents {
        let kind = text(&doc["kind"], "kind");
        let version = expected.iter().find(|(k, _)| *k == kind).unwrap_or_else(|| panic!("{file}: an unexpected kind {kind}")).1;
        assert_eq!(text(&doc["apiVersion"], "apiVersion"), version, "{file}: {kind}");
        name(doc);
    }
    // `kubectl apply -k deploy/kubernetes` applies every manifest.
    let kustomization = load(KUSTOMIZATION);
    let mut resources: Vec<String> = list(&kustomization[0]["resources"]).iter().map(|r| text(r, "a resource").to_string()).collect();
    resources.sort();
    assert_eq!(resources, manifests(), "{KUSTOMIZATION} lists every manifest");

    let secrets = of_kind(&documents, "Secret");
    let services = of_kind(&documents, "Service");
    let deployments = of_kind(&documents, "Deployment");

    for (deployment, doc) in &deployments {
        let labels = &doc["spec"]["template"]["metadata"]["labels"];
        for (key, value) in doc["spec"]["selector"]["matchLabels"].as_hash().expect("a selector") {
            assert_eq!(&labels[text(key, "a label")], value, "Deployment {deployment}: its selector matches its pods");
        }
        let pod = &doc["spec"]["template"]["spec"];
        let volumes: Vec<&str> = list(&pod["volumes"]).iter().map(|v| text(&v["name"], "a volume's name")).collect();
        for container in list(&pod["containers"]) {
            // The sandbox's privileges (docs/distributed.md): every container runs bots.
            assert_eq!(container["securityContext"]["privileged"].as_bool(), Some(true), "Deployment {deployment}: privileged");
            for mount in list(&container["volumeMounts"]) {
                assert!(volumes.contains(&text(&mount["name"], "a mount's name")), "Deployment {deployment}: {mount:?}");
            }
            for var in list(&container["env"]) {
                let reference = &var["valueFrom"]["secretKeyRef"];
                if reference.is_badvalue() {
                    continue;
                }
                let secret = secrets
                    .get(text(&reference["name"], "a Secret's name"))
                    .unwrap_or_else(|| panic!("Deployment {deployment}: no Secret {:?}", reference["name"]));
                assert!(
                    !secret["stringData"][text(&reference["key"], "a key")].is_badvalue(),
                    "Secret {}: no key {:?}",
                    name(secret),
                    reference["key"]
                );
            }
        }
    }

    // The server: listens where its Service sends, answers to the name workers use.
    let (server_deployment, server) = running(&documents, "serve");
    let server_args = args(server);
    let listen_port = value_of(&server_args, "--addr").and_then(|addr| addr.rsplit_once(':')).expect("serve --addr HOST:PORT").1;
    let port = list(&server["ports"]).first().expect("the server's port");
    assert_eq!(port["containerPort"].as_i64().map(|p| p.to_string()).as_deref(), Some(listen_port), "containerPort is --addr's");
    let pod = &deployments[server_deployment]["spec"]["template"];
    let annotations = &pod["metadata"]["annotations"];
    assert_eq!(text(&annotations["prometheus.io/port"], "the scrape port"), listen_port);
    assert_eq!(text(&annotations["prometheus.io/path"], "the scrape path"), "/metrics");

    // The worker: its --server URL is the server's Service, which the server answers to.
    let (worker_deployment, worker) = running(&documents, "worker");
    let worker_args = args(worker);
    let url = value_of(&worker_args, "--server").expect("worker --server URL");
    let (host, service_port) = url.strip_prefix("http://").and_then(|rest| rest.split_once(':')).expect("http://HOST:PORT");
    let service = services.get(host).unwrap_or_else(|| panic!("--server {url}: no Service {host}"));
    let service_ports = list(&service["spec"]["ports"]);
    let service_port = service_ports
        .iter()
        .find(|p| p["port"].as_i64().map(|p| p.to_string()).as_deref() == Some(service_port))
        .unwrap_or_else(|| panic!("Service {host} has no port {service_port}"));
    assert_eq!(service_port["targetPort"], port["name"], "Service {host} sends to the server's port");
    for (key, value) in service["spec"]["selector"].as_hash().expect("a selector") {
        assert_eq!(&pod["metadata"]["labels"][text(key, "a label")], value, "Service {host} selects the server's pods");
    }
    let hosts: Vec<&str> = server_args.windows(2).filter(|pair| pair[0] == "--public-host").map(|pair| pair[1].as_str()).collect();
    assert!(hosts.contains(&host), "the server answers to {host} (--public-host), else it refuses the workers' requests");

    // The worker's cache is the image's: XDG_CACHE_HOME of the Containerfile, /arbiter.
    let containerfile = std::fs::read_to_string(deploy().join("Containerfile")).expect("deploy/Containerfile");
    let cache_home = containerfile
        .split_whitespace()
        .find_map(|word| word.strip_prefix("XDG_CACHE_HOME="))
        .expect("the Containerfile sets XDG_CACHE_HOME");
    let mounts: Vec<&str> = list(&worker["volumeMounts"]).iter().map(|m| text(&m["mountPath"], "a mount path")).collect();
    assert!(mounts.contains(&format!("{cache_home}/arbiter").as_str()), "the worker's cache volume {mounts:?}");

    // The autoscaler scales the worker Deployment.
    let scaled = of_kind(&documents, "ScaledObject");
    assert_eq!(scaled.len(), 1, "one ScaledObject");
    for doc in scaled.values() {
        assert_eq!(text(&doc["spec"]["scaleTargetRef"]["name"], "the scaled Deployment"), worker_deployment);
    }
}

/// The server process, killed when the test ends (also on a panic).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn get(addr: &str, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).expect("connect to the server");
    stream.set_read_timeout(Some(SAFETY)).expect("a read timeout");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").expect("send the request");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("read the answer");
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    (head.lines().next().unwrap_or("").to_string(), body.to_string())
}

/// The `arbiter_*` names in a PromQL query.
fn metric_names(query: &str) -> Vec<&str> {
    query.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|word| word.starts_with("arbiter_")).collect()
}

#[test]
fn the_autoscaler_scales_on_metrics_the_server_exports() {
    let documents = documents();
    let mut names = Vec::new();
    for doc in of_kind(&documents, "ScaledObject").values() {
        for trigger in list(&doc["spec"]["triggers"]) {
            assert_eq!(text(&trigger["type"], "a trigger's type"), "prometheus");
            names.extend(metric_names(text(&trigger["metadata"]["query"], "a query")));
        }
    }
    assert!(names.contains(&"arbiter_games_pending"), "the autoscaler scales on the games waiting: {names:?}");

    let data = tempfile::tempdir().expect("a temporary folder");
    let child = Command::new(ARBITER)
        .args(["serve", "--addr", "127.0.0.1:0", "--admin-token", "deploy-test-token", "--no-sandbox", "-j", "1"])
        .arg("--data")
        .arg(data.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("arbiter serve starts");
    let mut server = Server(child);
    let stdout = server.0.stdout.take().expect("stdout");
    let (lines, first_lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let line = first_lines.recv_timeout(SAFETY).expect("the server prints its address");
    let addr = line
        .strip_prefix("arbiter serve: http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("not the start line: {line}"))
        .to_string();
    let (status, body) = get(&addr, "/metrics");
    assert_eq!(status, "HTTP/1.1 200 OK", "/metrics:\n{body}");
    for name in &names {
        let gauge = format!("# TYPE {name} gauge");
        assert!(body.lines().any(|line| line == gauge), "/metrics has no gauge {name}:\n{body}");
    }
}

#[test]
fn the_containerfile_installs_what_the_build_script_builds_and_runs_arbiter() {
    let containerfile = std::fs::read_to_string(deploy().join("Containerfile")).expect("deploy/Containerfile");
    let script = std::fs::read_to_string(deploy().join("../scripts/build-image")).expect("scripts/build-image");
    // Instructions, with continuation lines joined and comments left out.
    let joined = containerfile.replace("\\\n", " ");
    let instructions: Vec<(&str, &str)> = joined
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| line.split_once(' ').unwrap_or((line, "")))
        .collect();
    let known = ["FROM", "ADD", "COPY", "ENV", "WORKDIR", "EXPOSE", "ENTRYPOINT", "CMD", "LABEL", "USER", "VOLUME"];
    for (instruction, _) in &instructions {
        assert!(known.contains(instruction), "Containerfile: an unknown instruction {instruction}");
    }
    // No base image from a registry: only Debian's mirror is reached.
    assert_eq!(instructions.first(), Some(&("FROM", "scratch")), "the image is built FROM scratch");
    for (instruction, operands) in &instructions {
        if *instruction == "ADD" || *instruction == "COPY" {
            let words: Vec<&str> = operands.split_whitespace().collect();
            let (destination, sources) = words.split_last().expect("sources and a destination");
            for source in sources {
                // What the script puts in the build context: `$context/NAME`, or a
                // release binary copied into it.
                let placed = script.contains(&format!("$context/{source}")) || script.contains(&format!("$target/release/{source}\""));
                assert!(placed, "Containerfile: {instruction} {source}, which scripts/build-image does not put in the build context");
                if source.starts_with("arbiter") {
                    assert_eq!(*destination, "/usr/local/bin/", "the binaries side by side, where the sandbox helper is looked for");
                }
            }
        }
    }
    let entrypoint = instructions.iter().find(|(i, _)| *i == "ENTRYPOINT").expect("an ENTRYPOINT").1;
    let entrypoint: Vec<String> = serde_json::from_str(entrypoint).expect("ENTRYPOINT in exec form (JSON)");
    assert_eq!(entrypoint.last().map(String::as_str), Some("/usr/local/bin/arbiter"), "the image runs arbiter by its arguments");
    assert_eq!(entrypoint.first().map(String::as_str), Some("/usr/bin/tini"), "tini is pid 1");
    assert!(script.contains("--include tini"), "the script puts tini in the image");
    let cmd = instructions.iter().find(|(i, _)| *i == "CMD").expect("a CMD").1;
    let cmd: Vec<String> = serde_json::from_str(cmd).expect("CMD in exec form (JSON)");
    let out = Command::new(ARBITER).args(&cmd).output().expect("arbiter runs");
    assert!(out.status.success(), "the image's default arguments {cmd:?} fail: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_package_name_that_is_not_one_is_refused_before_anything_is_built() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let image = dir.path().join("image");
    let out = Command::new(ARBITER)
        .args(["system", "build", image.to_str().expect("UTF-8"), "--languages", "python", "--include", "tini,bash --root"])
        .output()
        .expect("arbiter runs");
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim(), "arbiter: \"bash --root\" is not a Debian package name");
    assert!(!image.exists() && !dir.path().join("image.partial").exists(), "nothing was made");
}
