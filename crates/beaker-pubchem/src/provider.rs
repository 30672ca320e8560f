//! PubChem's PUG REST service, off unless configured (`[pubchem.provider]`): asked only for compounds the
//! offline tables lack, with a timeout per request and the call's deadline checked between requests. It answers
//! the identity of a compound (CID, formula, weight, SMILES, InChI, InChIKey, IUPAC name, title) and its
//! synonyms; the tables' physical and safety data stay offline-only (PUG REST's property table has none).

use crate::search::{self, Identifier, Namespace};
use crate::PubchemError;
use beaker_core::{CallContext, ErrorKind, ToolError};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::time::Duration;

/// What the answers name as their source.
pub const LIVE_SOURCE: &str = "PubChem PUG REST (live)";
/// The properties asked of PUG REST.
const PROPERTIES: &str = "MolecularFormula,MolecularWeight,SMILES,InChI,InChIKey,IUPACName,Title";

/// `[pubchem.provider]`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The service's base url (default `https://pubchem.ncbi.nlm.nih.gov/rest/pug`).
    #[serde(default)]
    pub url: Option<String>,
    /// Milliseconds a request may take (default 5,000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// A configured PUG REST provider.
pub struct Provider {
    base: String,
    agent: ureq::Agent,
}

/// A compound PUG REST found.
#[derive(Debug, Clone)]
pub struct LiveCompound {
    /// Its property-table entry (`CID`, `MolecularFormula`, ...).
    pub props: Map<String, Value>,
    /// Its synonyms, when they were asked for.
    pub synonyms: Option<Vec<String>>,
}

impl Provider {
    /// The provider `config` describes.
    pub fn new(config: &ProviderConfig) -> Result<Provider, PubchemError> {
        let base = config
            .url
            .as_deref()
            .unwrap_or("https://pubchem.ncbi.nlm.nih.gov/rest/pug")
            .trim_end_matches('/')
            .to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(PubchemError::Provider(format!(
                "[pubchem.provider]: url {base:?} is not http(s)"
            )));
        }
        let timeout = Duration::from_millis(config.timeout_ms.unwrap_or(5_000).max(1));
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent("beaker-pubchem")
            .build()
            .new_agent();
        Ok(Provider { base, agent })
    }

    fn get(&self, path: &str) -> Result<Option<Value>, ToolError> {
        let url = format!("{}/{path}", self.base);
        let failed =
            |m: String| ToolError::new(ErrorKind::ToolError, format!("{LIVE_SOURCE}: {m}"));
        let mut response = self
            .agent
            .get(&url)
            .call()
            // No answer (refused, unreachable, timed out): the same call may succeed later.
            .map_err(|e| failed(e.to_string()).transient())?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(4 << 20)
            .read_to_string()
            .map_err(|e| failed(format!("HTTP {status}: {e}")).transient())?;
        // Overloaded or down (PUG REST answers 503 "server busy" when throttling): the service's state, not the
        // question's; its body need not be JSON.
        if ToolError::transient_status(status) {
            let why = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|b| b["Fault"]["Message"].as_str().map(str::to_string))
                .unwrap_or_else(|| text.trim().chars().take(300).collect());
            return Err(failed(format!("HTTP {status}: {why}")).transient());
        }
        let body: Value = serde_json::from_str(&text)
            .map_err(|e| failed(format!("HTTP {status}, not JSON: {e}")))?;
        if status == 404 || body["Fault"]["Code"] == "PUGREST.NotFound" {
            return Ok(None);
        }
        if status != 200 {
            let why = body["Fault"]["Message"].as_str().unwrap_or("no message");
            return Err(failed(format!("HTTP {status}: {why}")));
        }
        Ok(Some(body))
    }

    /// The compound `identifier` names (in `ns`; without one, a CID by its digits, an InChIKey by its form, else
    /// by name), or `None` when PubChem has none.
    pub fn lookup(
        &self,
        identifier: &Identifier,
        ns: Option<Namespace>,
        ctx: &CallContext,
    ) -> Result<Option<LiveCompound>, ToolError> {
        let text = match identifier {
            Identifier::Cid(n) => n.to_string(),
            Identifier::Text(t) => t.trim().to_string(),
        };
        // The offline reading's own rules for a CID (`2244`, `CID 2244`) and an InChIKey.
        let cid = search::cid_form(&text);
        let ns = ns.unwrap_or(match identifier {
            Identifier::Cid(_) => Namespace::Cid,
            Identifier::Text(_) if cid.is_some() => Namespace::Cid,
            Identifier::Text(_) if search::is_inchikey(&text.to_ascii_uppercase()) => {
                Namespace::Inchikey
            }
            Identifier::Text(_) => Namespace::Name,
        });
        let (space, id) = match ns {
            Namespace::Name => ("name", text),
            Namespace::Cid => ("cid", cid.map_or(text, |n| n.to_string())),
            Namespace::Smiles => ("smiles", text),
            Namespace::Inchikey => ("inchikey", text.to_ascii_uppercase()),
            Namespace::Formula => ("fastformula", text),
            // PUG REST has no CAS namespace: a CAS number is one of a compound's names.
            Namespace::Cas => ("name", text),
            // PUG REST takes an InChI only by POST.
            Namespace::Inchi => return Ok(None),
        };
        ctx.checkpoint()?;
        let Some(body) = self.get(&format!(
            "compound/{space}/{}/property/{PROPERTIES}/JSON",
            encode(&id)
        ))?
        else {
            return Ok(None);
        };
        let all = body["PropertyTable"]["Properties"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if all.len() > 1 {
            // A formula (or a name) several compounds answer to is not answered with one of them.
            let names: Vec<String> = all
                .iter()
                .take(8)
                .map(|c| format!("{} (CID {})", c["Title"].as_str().unwrap_or("?"), c["CID"]))
                .collect();
            return Err(ToolError::invalid_params(format!(
                "{LIVE_SOURCE}: `{id}` names {} compounds ({}{}); name one, or give its CID",
                all.len(),
                names.join(", "),
                if all.len() > names.len() { ", ..." } else { "" }
            )));
        }
        let Some(first) = all.first().and_then(Value::as_object) else {
            return Ok(None);
        };
        let mut found = LiveCompound {
            props: first.clone(),
            synonyms: None,
        };
        if let Some(cid) = first.get("CID").and_then(Value::as_i64) {
            ctx.checkpoint()?;
            if let Some(s) = self.get(&format!("compound/cid/{cid}/synonyms/JSON"))? {
                found.synonyms = s["InformationList"]["Information"][0]["Synonym"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(String::from))
                            .collect()
                    });
            }
        }
        Ok(Some(found))
    }
}

/// A path segment percent-encoded (RFC 3986 unreserved characters kept).
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The answer for a compound PUG REST found, in the offline answers' shape; `properties` are PubChem's names.
pub fn answer(
    operation: &str,
    properties: Option<&[&'static str]>,
    max_synonyms: u64,
    c: LiveCompound,
) -> Value {
    let p = &c.props;
    let text = |k: &str| p.get(k).cloned().unwrap_or(Value::Null);
    // PUG REST writes the weight as a string ("180.16").
    let mw = match p.get("MolecularWeight") {
        Some(Value::String(s)) => s.parse::<f64>().map(|v| json!(v)).unwrap_or(Value::Null),
        Some(v) => v.clone(),
        None => Value::Null,
    };
    let mut out = Map::new();
    out.insert("cid".into(), text("CID"));
    out.insert("name".into(), text("Title"));
    out.insert("formula".into(), text("MolecularFormula"));
    out.insert("molecular_weight".into(), mw.clone());
    out.insert("read_as".into(), json!("live lookup"));
    match operation {
        "compound" | "structure" => {
            if operation == "compound" {
                out.insert("iupac_name".into(), text("IUPACName"));
            }
            out.insert("smiles".into(), text("SMILES"));
            out.insert("inchi".into(), text("InChI"));
            out.insert("inchikey".into(), text("InChIKey"));
        }
        "synonyms" => {
            let all = c.synonyms.unwrap_or_default();
            let n = (max_synonyms as usize).min(all.len());
            out.insert("synonyms".into(), json!(all[..n]));
            out.insert("count".into(), json!(all.len()));
        }
        "properties" => {
            let live = [
                ("MolecularWeight", mw.clone()),
                ("MolecularFormula", text("MolecularFormula")),
                ("SMILES", text("SMILES")),
                ("InChI", text("InChI")),
                ("InChIKey", text("InChIKey")),
                ("IUPACName", text("IUPACName")),
                ("Title", text("Title")),
            ];
            let asked: Vec<&str> = match properties {
                Some(list) => list.to_vec(),
                None => live.iter().map(|(k, _)| *k).collect(),
            };
            let mut props = Map::new();
            let mut missing = Vec::new();
            for name in asked {
                match live.iter().find(|(k, v)| *k == name && !v.is_null()) {
                    Some((_, v)) => {
                        let mut entry = json!({"value": v, "source": LIVE_SOURCE});
                        if name == "MolecularWeight" {
                            entry["unit"] = json!("g/mol");
                        }
                        props.insert(name.into(), entry);
                    }
                    None => missing.push(name),
                }
            }
            out.insert("properties".into(), Value::Object(props));
            if !missing.is_empty() {
                out.insert("missing".into(), json!(missing));
            }
        }
        "safety" => {
            out.insert(
                "note".into(),
                json!("this compound is not in the offline tables, and safety data is only answered from them"),
            );
        }
        _ => {}
    }
    out.insert("source".into(), json!(LIVE_SOURCE));
    Value::Object(out)
}
