//! A trajectory's files: an in-memory tree that the file tools, the image tools, the plotter and
//! `execute_python` read and write, bounded in files, bytes, depth and path length, and reserved from the
//! process's [`MemoryBudget`](crate::MemoryBudget).
//!
//! The tree lives in memory, not in a temporary folder: no path a call names can reach the host's file system
//! (no links, no `..`, no races with other processes), a closed or evicted trajectory frees it by dropping it,
//! and its bytes are counted in the one memory budget. Folders are implicit: a folder exists while a file is
//! under it, as in an object store.

use crate::{ErrorKind, MemoryBudget, Reservation, ToolError};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The bounds of one workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkspaceLimits {
    /// Files it may hold. Default 256.
    pub max_files: usize,
    /// Bytes of file content it may hold, all files together. Default 32 MiB.
    pub max_bytes: u64,
    /// Folders deep a path may go (`a/b/c.txt` is 3). Default 16.
    pub max_depth: usize,
    /// Bytes a path may have. Default 1,024 (a name at most 255).
    pub max_path_bytes: usize,
}

impl Default for WorkspaceLimits {
    fn default() -> Self {
        WorkspaceLimits {
            max_files: 256,
            max_bytes: 32 << 20,
            max_depth: 16,
            max_path_bytes: 1024,
        }
    }
}

/// What a file costs the memory budget beyond its content: its path, its map node and its `Arc`.
const PER_FILE_OVERHEAD: u64 = 128;

/// One file's bytes, shared by the workspace and whoever read it last (reading never copies).
pub type FileBytes = Arc<Vec<u8>>;

/// A file tree in memory; cloning shares it. Thread-safe: calls of one trajectory running at once each see
/// every write completed before theirs began.
#[derive(Clone)]
pub struct Workspace(Arc<Shared>);

struct Shared {
    limits: WorkspaceLimits,
    /// Kept past the call (a trajectory's), or dropped with it (an untagged call's).
    lasting: bool,
    tree: Mutex<Tree>,
    memory: MemoryBudget,
}

#[derive(Default)]
struct Tree {
    files: BTreeMap<String, FileBytes>,
    /// Content bytes of `files`.
    bytes: u64,
    /// What the tree holds, reserved from the memory budget (made on the first write).
    reservation: Option<Reservation>,
}

/// What `files` files of `bytes` content bytes in all cost the memory budget.
fn cost(bytes: u64, files: usize) -> u64 {
    bytes + PER_FILE_OVERHEAD * files as u64
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (files, bytes) = self.usage();
        f.debug_struct("Workspace")
            .field("lasting", &self.0.lasting)
            .field("files", &files)
            .field("bytes", &bytes)
            .finish()
    }
}

/// One entry of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its path from the workspace's root (`data/x.csv`; a folder's has no trailing `/`).
    pub path: String,
    /// Content bytes (a folder's: all its files').
    pub size: u64,
    /// Whether it is a folder.
    pub is_dir: bool,
}

/// Names Windows reserves for devices: refused so a workspace copied to any host means the same files.
const RESERVED: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "COM¹", "COM²", "COM³", "LPT¹", "LPT²",
    "LPT³", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9", "LPT1", "LPT2",
    "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

impl Workspace {
    /// An empty workspace bounded by `limits`, its bytes reserved from `memory`; `lasting` when it outlives
    /// the call that made it (a trajectory's).
    pub fn new(limits: WorkspaceLimits, memory: MemoryBudget, lasting: bool) -> Workspace {
        Workspace(Arc::new(Shared {
            limits,
            lasting,
            tree: Mutex::new(Tree::default()),
            memory,
        }))
    }

    /// An empty one-call workspace with the default limits and no memory budget (tests, direct tool use).
    pub fn scratch() -> Workspace {
        Workspace::new(WorkspaceLimits::default(), MemoryBudget::unlimited(), false)
    }

    /// Whether it outlives the call (a trajectory's workspace) rather than being dropped with it.
    pub fn is_lasting(&self) -> bool {
        self.0.lasting
    }

    /// Its bounds.
    pub fn limits(&self) -> &WorkspaceLimits {
        &self.0.limits
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tree> {
        self.0.tree.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Files held and their content bytes.
    pub fn usage(&self) -> (usize, u64) {
        let t = self.lock();
        (t.files.len(), t.bytes)
    }

    /// `raw` as a path inside the workspace (`./a//b.txt` is `a/b.txt`), or why it is refused: empty, absolute,
    /// `..`, a NUL or control character, a backslash, a reserved device name, a name past 255 bytes, deeper
    /// than `max_depth` or longer than `max_path_bytes`. `""` and `.` name the root, for listings only.
    pub fn normalize(&self, raw: &str, allow_root: bool) -> Result<String, ToolError> {
        let bad = |why: &str| {
            ToolError::invalid_params(format!(
                "path {}: {why}; paths are relative to the workspace's root, such as `notes.txt` or `outputs/plot.png`",
                quote(raw)
            ))
        };
        if raw.starts_with('/')
            || raw.starts_with('~')
            || raw.get(1..3) == Some(":\\")
            || raw.get(1..3) == Some(":/")
        {
            return Err(bad("is absolute"));
        }
        if raw.contains('\\') {
            return Err(bad("has a backslash (use `/` between folders)"));
        }
        if raw.chars().any(char::is_control) {
            return Err(bad("has a NUL or control character"));
        }
        // What Windows refuses in a name, and the invisible characters that make two names look alike or a
        // name read backwards (zero-width, bidirectional overrides, byte-order mark).
        if let Some(c) = raw.chars().find(|c| {
            matches!(c, ':' | '<' | '>' | '"' | '|' | '?' | '*')
                || matches!(*c as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2066..=0x2069 | 0xFEFF)
        }) {
            return Err(bad(&format!(
                "has {c:?}, which a file name may not hold everywhere"
            )));
        }
        let mut parts: Vec<&str> = Vec::new();
        for part in raw.split('/') {
            match part {
                "" | "." => continue,
                ".." => return Err(bad("leaves the workspace (`..`)")),
                p if p.len() > 255 => return Err(bad("has a name longer than 255 bytes")),
                p if p.ends_with(' ') || p.ends_with('.') => {
                    return Err(bad("has a name ending in a space or a dot"))
                }
                p => {
                    let stem = p.split('.').next().unwrap_or(p);
                    if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(stem)) {
                        return Err(bad("uses a reserved device name"));
                    }
                    parts.push(p);
                }
            }
        }
        if parts.is_empty() {
            return if allow_root {
                Ok(String::new())
            } else {
                Err(bad("names no file"))
            };
        }
        let l = &self.0.limits;
        if parts.len() > l.max_depth {
            return Err(ToolError::limit(format!(
                "path {} is {} levels deep; a workspace allows {}",
                quote(raw),
                parts.len(),
                l.max_depth
            )));
        }
        let path = parts.join("/");
        if path.len() > l.max_path_bytes {
            return Err(ToolError::limit(format!(
                "path {} is {} bytes; a workspace allows {}",
                quote(raw),
                path.len(),
                l.max_path_bytes
            )));
        }
        Ok(path)
    }

    /// The bytes of file `path` (normalised), or `File not found: PATH` (seed 001's wording), or that it is a
    /// folder.
    pub fn read(&self, path: &str) -> Result<FileBytes, ToolError> {
        let t = self.lock();
        if let Some(b) = t.files.get(path) {
            return Ok(b.clone());
        }
        if is_dir(&t, path) {
            return Err(ToolError::invalid_params(format!(
                "{path} is a folder, not a file; list_files shows what it holds"
            )));
        }
        Err(not_found(path))
    }

    /// Writes `bytes` to file `path` (normalised), or adds them at its end when `append`; returns the file's
    /// new size and whether it was created. Refused, with nothing changed, past a limit or where a folder of
    /// that name exists or a file stands where a folder of the path would be.
    pub fn write(&self, path: &str, bytes: &[u8], append: bool) -> Result<(u64, bool), ToolError> {
        let l = self.0.limits;
        let mut t = self.lock();
        if is_dir(&t, path) {
            return Err(ToolError::invalid_params(format!(
                "{path} is a folder; a file cannot take its name"
            )));
        }
        let mut prefix = path;
        while let Some((parent, _)) = prefix.rsplit_once('/') {
            if t.files.contains_key(parent) {
                return Err(ToolError::invalid_params(format!(
                    "{parent} is a file, so it cannot be a folder holding {path}"
                )));
            }
            prefix = parent;
        }
        let old = t.files.get(path).cloned();
        let created = old.is_none();
        if created && t.files.len() >= l.max_files {
            return Err(ToolError::limit(format!(
                "the workspace holds {} files, its limit; delete_file makes room",
                t.files.len()
            )));
        }
        let old_len = old.as_ref().map_or(0, |b| b.len() as u64);
        let new_len = if append {
            old_len + bytes.len() as u64
        } else {
            bytes.len() as u64
        };
        let total = t.bytes - old_len + new_len;
        if total > l.max_bytes {
            return Err(ToolError::limit(format!(
                "writing {path} ({new_len} bytes) would bring the workspace to {total} bytes; its limit is {}",
                l.max_bytes
            )));
        }
        let cost = cost(total, t.files.len() + usize::from(created));
        match &mut t.reservation {
            Some(r) => r.resize(cost, "a workspace's files")?,
            None => t.reservation = Some(self.0.memory.try_reserve(cost, "a workspace's files")?),
        }
        let content = match (append, old) {
            (true, Some(old)) => {
                let mut v = Vec::with_capacity(new_len as usize);
                v.extend_from_slice(&old);
                v.extend_from_slice(bytes);
                v
            }
            _ => bytes.to_vec(),
        };
        t.files.insert(path.to_string(), Arc::new(content));
        t.bytes = total;
        Ok((new_len, created))
    }

    /// Deletes file `path` (normalised); returns the bytes freed and whether `path` was a folder. A folder is
    /// refused unless `recursive`, which deletes every file under it.
    pub fn delete(&self, path: &str, recursive: bool) -> Result<(u64, bool), ToolError> {
        let mut t = self.lock();
        let folder = !t.files.contains_key(path);
        let freed = if let Some(b) = t.files.remove(path) {
            b.len() as u64
        } else if is_dir(&t, path) {
            if !recursive {
                return Err(ToolError::invalid_params(format!(
                    "{path} is a folder; give `recursive: true` to delete it with every file under it"
                )));
            }
            let under: Vec<String> = files_under(&t, path).map(|(k, _)| k.clone()).collect();
            under
                .iter()
                .filter_map(|k| t.files.remove(k))
                .map(|b| b.len() as u64)
                .sum()
        } else {
            return Err(not_found(path));
        };
        t.bytes -= freed;
        let cost = cost(t.bytes, t.files.len());
        if let Some(r) = &mut t.reservation {
            // A shrink never fails.
            let _ = r.resize(cost, "");
        }
        Ok((freed, folder))
    }

    /// What folder `dir` (normalised; `""` the root) holds: its files and folders, directly or at every depth
    /// (`recursive`), sorted by path. Refused when `dir` is a file or does not exist (the root always does).
    pub fn list(&self, dir: &str, recursive: bool) -> Result<Vec<Entry>, ToolError> {
        let t = self.lock();
        if t.files.contains_key(dir) {
            return Err(ToolError::invalid_params(format!(
                "{dir} is a file, not a folder; read_file reads it"
            )));
        }
        if !dir.is_empty() && !is_dir(&t, dir) {
            return Err(ToolError::invalid_params(format!(
                "Folder not found: {dir}"
            )));
        }
        let mut out: BTreeMap<String, Entry> = BTreeMap::new();
        for (path, bytes) in files_under(&t, dir) {
            let rel = if dir.is_empty() {
                path.as_str()
            } else {
                &path[dir.len() + 1..]
            };
            let size = bytes.len() as u64;
            // Every folder between `dir` and the file, each with the file's size added.
            let mut end = 0;
            while let Some(i) = rel[end..].find('/') {
                end += i;
                let folder = full(dir, &rel[..end]);
                out.entry(folder.clone())
                    .or_insert(Entry {
                        path: folder,
                        size: 0,
                        is_dir: true,
                    })
                    .size += size;
                if !recursive {
                    break;
                }
                end += 1;
            }
            if recursive || !rel.contains('/') {
                out.insert(
                    path.clone(),
                    Entry {
                        path: path.clone(),
                        size,
                        is_dir: false,
                    },
                );
            }
        }
        Ok(out.into_values().collect())
    }

    /// Every file and its bytes, sorted by path (what `execute_python` is handed).
    pub fn files(&self) -> Vec<(String, FileBytes)> {
        self.lock()
            .files
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

fn full(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// Files strictly under folder `dir` (`""`: every file).
fn files_under<'a>(t: &'a Tree, dir: &'a str) -> impl Iterator<Item = (&'a String, &'a FileBytes)> {
    let start = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let range_start = start.clone();
    t.files
        .range(range_start..)
        .take_while(move |(k, _)| k.starts_with(&start))
}

fn is_dir(t: &Tree, path: &str) -> bool {
    !path.is_empty() && files_under(t, path).next().is_some()
}

/// Seed 001's error for a missing file.
fn not_found(path: &str) -> ToolError {
    ToolError::new(ErrorKind::InvalidParams, format!("File not found: {path}"))
}

/// A path quoted for an error, cut short and with control characters escaped.
fn quote(raw: &str) -> String {
    let cut: String = raw.chars().take(120).collect();
    let more = if cut.len() < raw.len() { "…" } else { "" };
    format!("{:?}{more}", cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> Workspace {
        Workspace::scratch()
    }

    #[test]
    fn paths_are_normalised_or_refused() {
        let w = ws();
        assert_eq!(w.normalize("./a//b.txt", false).unwrap(), "a/b.txt");
        assert_eq!(
            w.normalize("outputs/sunset.png", false).unwrap(),
            "outputs/sunset.png"
        );
        assert_eq!(w.normalize(".", true).unwrap(), "");
        for bad in [
            "",
            ".",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a\\b",
            "a\0b",
            "C:\\x",
            "c:/x",
            "~/x",
            "con",
            "lpt1.txt",
            "a/NUL.png",
            "x ",
            "x.",
            "a\nb",
        ] {
            let e = w.normalize(bad, false).unwrap_err();
            assert_eq!(e.kind, ErrorKind::InvalidParams, "{bad:?}: {}", e.message);
        }
        let deep = vec!["d"; 17].join("/");
        assert_eq!(
            w.normalize(&deep, false).unwrap_err().kind,
            ErrorKind::LimitExceeded
        );
        let long = "a".repeat(256);
        assert_eq!(
            w.normalize(&long, false).unwrap_err().kind,
            ErrorKind::InvalidParams
        );
    }

    #[test]
    fn write_read_append_delete() {
        let w = ws();
        assert_eq!(w.write("a/b.txt", b"hello", false).unwrap(), (5, true));
        assert_eq!(w.write("a/b.txt", b" world", true).unwrap(), (11, false));
        assert_eq!(&**w.read("a/b.txt").unwrap(), b"hello world");
        assert_eq!(
            w.read("nope.txt").unwrap_err().message,
            "File not found: nope.txt"
        );
        assert!(w.read("a").unwrap_err().message.contains("is a folder"));
        assert!(w
            .write("a", b"x", false)
            .unwrap_err()
            .message
            .contains("is a folder"));
        assert!(w
            .write("a/b.txt/c", b"x", false)
            .unwrap_err()
            .message
            .contains("is a file"));
        assert!(w.delete("a", false).is_err());
        assert_eq!(w.delete("a", true).unwrap(), (11, true));
        assert_eq!(w.usage(), (0, 0));
        assert_eq!(
            w.delete("a/b.txt", false).unwrap_err().message,
            "File not found: a/b.txt"
        );
    }

    #[test]
    fn listings_show_folders_with_their_sizes() {
        let w = ws();
        w.write("x.txt", b"1", false).unwrap();
        w.write("d/y.txt", b"22", false).unwrap();
        w.write("d/e/z.txt", b"333", false).unwrap();
        w.write("dz.txt", b"4444", false).unwrap();
        let top = w.list("", false).unwrap();
        let names: Vec<(&str, u64, bool)> = top
            .iter()
            .map(|e| (e.path.as_str(), e.size, e.is_dir))
            .collect();
        assert_eq!(
            names,
            [("d", 5, true), ("dz.txt", 4, false), ("x.txt", 1, false)]
        );
        let all = w.list("d", true).unwrap();
        let names: Vec<&str> = all.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(names, ["d/e", "d/e/z.txt", "d/y.txt"]);
        assert!(w.list("x.txt", false).is_err());
        assert_eq!(
            w.list("nowhere", false).unwrap_err().message,
            "Folder not found: nowhere"
        );
    }

    #[test]
    fn limits_refuse_and_change_nothing() {
        let limits = WorkspaceLimits {
            max_files: 2,
            max_bytes: 10,
            ..WorkspaceLimits::default()
        };
        let w = Workspace::new(limits, MemoryBudget::unlimited(), true);
        w.write("a", b"12345", false).unwrap();
        assert_eq!(
            w.write("b", b"123456", false).unwrap_err().kind,
            ErrorKind::LimitExceeded
        );
        w.write("b", b"1", false).unwrap();
        assert_eq!(
            w.write("c", b"1", false).unwrap_err().kind,
            ErrorKind::LimitExceeded
        );
        assert_eq!(w.usage(), (2, 6));
    }

    #[test]
    fn bytes_are_reserved_from_the_memory_budget_and_given_back() {
        let budget = MemoryBudget::new(1000);
        let w = Workspace::new(WorkspaceLimits::default(), budget.clone(), true);
        w.write("a", &[0; 500], false).unwrap();
        assert_eq!(budget.used(), 500 + PER_FILE_OVERHEAD);
        assert_eq!(
            w.write("b", &[0; 500], false).unwrap_err().kind,
            ErrorKind::LimitExceeded
        );
        w.delete("a", false).unwrap();
        assert_eq!(budget.used(), 0);
        w.write("c", &[0; 10], false).unwrap();
        drop(w);
        assert_eq!(budget.used(), 0);
    }
}
