//! Hugo. (Stub: every page served as authored; see docs/authoring/generators.md.)

use serde_json::{Map, Value};

use super::{Detection, Flavor, Generator, Page, RenderCx, Role, Settings};
use crate::compile::Report;

pub struct Hugo {
    settings: Settings,
}

impl Hugo {
    pub fn load(detection: &Detection, _report: &mut Report) -> Hugo {
        let _ = detection;
        Hugo {
            settings: Settings {
                base_path: "/".into(),
                ..Settings::default()
            },
        }
    }
}

impl Generator for Hugo {
    fn flavor(&self) -> Flavor {
        Flavor::Hugo
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
