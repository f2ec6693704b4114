//! Release dates: seconds since the epoch to and from `YYYY-MM-DD[THH:MM:SSZ]` (UTC,
//! proleptic Gregorian), without a date crate. A leaf: the history, the renderings and the
//! site generators (Hugo's expiry dates) read dates through it.

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the epoch (UTC, proleptic Gregorian).
pub fn format_date(epoch: u64) -> String {
    let days = (epoch / 86_400) as i64;
    let seconds = epoch % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The last second a date names: `YYYY-MM-DD` is the whole day (a release "on or before"
/// it may be from any time that day), `YYYY-MM-DDTHH:MM:SSZ` that second.
pub fn parse_date(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<u64> {
        let part = text.get(range)?;
        (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse().ok())
            .flatten()
    };
    if bytes.len() < 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    let day = days_from_civil(y as i64, m as u32, d as u32) as u64 * 86_400;
    match &text[10..] {
        "" => Some(day + 86_399),
        rest => {
            let rest = rest.strip_prefix('T')?.strip_suffix('Z')?;
            let b = rest.as_bytes();
            if b.len() != 8 || b[2] != b':' || b[5] != b':' {
                return None;
            }
            let (h, min, s) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
            (h < 24 && min < 60 && s < 60).then_some(day + h * 3600 + min * 60 + s)
        }
    }
}

fn days_in_month(y: u64, m: u64) -> u64 {
    match m {
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's `days_from_civil` / `civil_from_days`.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}
