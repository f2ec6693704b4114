//! Jekyll. (Stub: every page served as authored; see docs/authoring/generators.md.)

use serde_json::{Map, Value};

use super::{Detection, Flavor, Generator, Page, RenderCx, Role, Settings};
use crate::compile::Report;

pub struct Jekyll {
    settings: Settings,
}

impl Jekyll {
    pub fn load(detection: &Detection, _report: &mut Report) -> Jekyll {
        let _ = detection;
        Jekyll {
            settings: Settings {
                base_path: "/".into(),
                ..Settings::default()
            },
        }
    }
}

impl Generator for Jekyll {
    fn flavor(&self) -> Flavor {
        Flavor::Jekyll
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn role(&self, _rel: &str, _frontmatter: Option<&Map<String, Value>>) -> Role {
        Role::Page
    }

    fn render(&self, page: &Page<'_>, _cx: &mut RenderCx<'_>) -> String {
        page.body().to_owned()
    }
}
