//! Where the release commands write: a new folder, or an empty one. A release never
//! overwrites files a host team may already have checked or shipped.

use std::path::Path;

/// Create `dir`, or accept it if it exists and is empty: a release never overwrites files.
pub fn create_empty_dir(dir: &Path) -> Result<(), String> {
    if let Ok(mut entries) = std::fs::read_dir(dir) {
        if entries.next().is_some() {
            return Err(format!(
                "{} already holds files — give a new folder, or remove this one first",
                dir.display()
            ));
        }
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create it: {e}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_with_files_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        create_empty_dir(dir.path()).unwrap();
        std::fs::write(dir.path().join("kept"), "x").unwrap();
        let error = create_empty_dir(dir.path()).unwrap_err();
        assert!(error.contains("already holds files"), "{error}");
        assert_eq!(std::fs::read(dir.path().join("kept")).unwrap(), b"x");
    }
}
