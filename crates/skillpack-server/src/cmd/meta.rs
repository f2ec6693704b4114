//! `_meta` objects of results, tools and skills: one namespaced entry each.

use rmcp::model::MetaObject;
use serde_json::{Map, Value};

/// `_meta` with one namespaced entry.
pub fn meta(key: &str, value: Value) -> MetaObject {
    let mut map = Map::new();
    map.insert(key.into(), value);
    MetaObject::from(map)
}
