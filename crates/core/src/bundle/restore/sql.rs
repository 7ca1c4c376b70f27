//! Inserting a row into an agent's SQLite table whose columns change from release to release.

use rusqlite::types::Value as Sql;
use rusqlite::Connection;

/// One row into `table`: only the columns this version of the schema has; a required column
/// left without a value gets an empty text or 0, as its type says.
pub(super) fn insert(
    conn: &Connection,
    table: &str,
    values: &[(&str, Sql)],
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
    let columns: Vec<(String, String, bool, bool)> = stmt
        .query_map([], |r| {
            let dflt: Option<String> = r.get(4)?;
            Ok((
                r.get(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)? != 0,
                dflt.is_some(),
            ))
        })?
        .filter_map(Result::ok)
        .collect();
    let mut names = Vec::new();
    let mut params = Vec::new();
    for (name, kind, not_null, has_default) in &columns {
        let given = values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .filter(|v| *v != Sql::Null);
        let value = match given {
            Some(v) => v,
            None if *not_null && !*has_default => {
                if kind.to_ascii_lowercase().contains("int") {
                    Sql::Integer(0)
                } else {
                    Sql::Text(String::new())
                }
            }
            None => continue,
        };
        names.push(format!("\"{}\"", name.replace('"', "\"\"")));
        params.push(value);
    }
    let sql = format!(
        "INSERT INTO \"{table}\" ({}) VALUES ({})",
        names.join(", "),
        vec!["?"; names.len()].join(", ")
    );
    conn.execute(&sql, rusqlite::params_from_iter(params))?;
    Ok(())
}
