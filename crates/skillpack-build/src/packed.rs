//! Rows of small unsigned fields packed bit to bit, each field in as many bits as its
//! largest value needs ([`PackedRows`]): the search index's passage table, read in place
//! row by row.
//!
//! Written by hand: the bit-packing crates pack blocks of integers for sequential
//! decoding (postings), not records read at random from an archive mapped in place. A
//! row of at most [`ROW_MAX_BITS`] bits is one unaligned 16-byte load and a shift; each
//! field then a shift and a mask.

use rkyv::{Archive, Serialize};

/// The widest row one load reads: a 16-byte load shifted by up to 7 bits keeps 121.
pub const ROW_MAX_BITS: u32 = 120;

/// Rows of `N` fields, field `f` taking `widths[f]` bits (at most 32) at bit `offsets[f]`
/// of the row; row `r` starts at bit `r * row_bits` of `bytes` (little-endian bit order),
/// which ends with 16 bytes of padding so that every row reads as one 16-byte load.
#[derive(Archive, Serialize, Debug, Default, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct PackedRows {
    pub widths: Vec<u8>,
    pub offsets: Vec<u32>,
    pub row_bits: u32,
    pub rows: u32,
    pub bytes: Vec<u8>,
}

impl PackedRows {
    /// Pack `rows`. A table whose fields would not fit in [`ROW_MAX_BITS`] keeps the
    /// widest fields at 32 bits and is read field by field.
    pub fn pack<const N: usize>(rows: &[[u32; N]]) -> PackedRows {
        let mut widths = [0u8; N];
        for row in rows {
            for (width, &value) in widths.iter_mut().zip(row) {
                *width = (*width).max((32 - value.leading_zeros()) as u8);
            }
        }
        let mut offsets = Vec::with_capacity(N);
        let mut row_bits = 0u32;
        for &width in &widths {
            offsets.push(row_bits);
            row_bits += u32::from(width);
        }
        let total = rows.len() as u64 * u64::from(row_bits);
        let mut bytes = vec![0u8; total.div_ceil(8) as usize + 16];
        for (r, row) in rows.iter().enumerate() {
            let base = r as u64 * u64::from(row_bits);
            for ((&value, &width), &offset) in row.iter().zip(&widths).zip(&offsets) {
                for bit in 0..u64::from(width) {
                    if value >> bit & 1 == 1 {
                        let at = base + u64::from(offset) + bit;
                        bytes[(at / 8) as usize] |= 1 << (at % 8);
                    }
                }
            }
        }
        PackedRows {
            widths: widths.to_vec(),
            offsets,
            row_bits,
            rows: rows.len() as u32,
            bytes,
        }
    }
}

impl ArchivedPackedRows {
    pub fn len(&self) -> usize {
        self.rows.to_native() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A reader of `N` fields: the layout copied out of the archive once, for reads in a
    /// loop. A table of another shape (a damaged archive) reads zeros.
    pub fn reader<const N: usize>(&self) -> Reader<'_, N> {
        let mut shifts = [0u32; N];
        let mut masks = [0u32; N];
        let fits = self.widths.len() == N && self.offsets.len() == N;
        if fits {
            for f in 0..N {
                let width = u32::from(self.widths[f]).min(32);
                shifts[f] = self.offsets[f].to_native();
                masks[f] = if width == 32 {
                    u32::MAX
                } else {
                    (1 << width) - 1
                };
            }
        }
        Reader {
            bytes: if fits { self.bytes.as_slice() } else { &[] },
            row_bits: self.row_bits.to_native(),
            rows: if fits { self.rows.to_native() } else { 0 },
            shifts,
            masks,
        }
    }
}

/// Reads rows of a [`PackedRows`] table.
#[derive(Debug, Clone, Copy)]
pub struct Reader<'a, const N: usize> {
    bytes: &'a [u8],
    row_bits: u32,
    rows: u32,
    shifts: [u32; N],
    masks: [u32; N],
}

/// One row's bits, for [`Reader::field`].
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The row from its first bit, when it fits in one load.
    bits: u128,
    row: u32,
}

impl<const N: usize> Reader<'_, N> {
    /// Row `row` (all zeros past the end).
    #[inline]
    pub fn row(&self, row: u32) -> Row {
        let mut bits = 0u128;
        if row < self.rows && self.row_bits <= ROW_MAX_BITS {
            let at = u64::from(row) * u64::from(self.row_bits);
            let byte = (at / 8) as usize;
            if let Some(chunk) = self.bytes.get(byte..).and_then(|b| b.first_chunk::<16>()) {
                bits = u128::from_le_bytes(*chunk) >> (at % 8);
            }
        }
        Row { bits, row }
    }

    /// Field `field` of `row`.
    #[inline]
    pub fn field(&self, row: Row, field: usize) -> u32 {
        if self.row_bits <= ROW_MAX_BITS {
            (row.bits >> self.shifts[field]) as u32 & self.masks[field]
        } else {
            self.read(row.row, field)
        }
    }

    /// Field `field` of row `row`, read on its own.
    fn read(&self, row: u32, field: usize) -> u32 {
        if row >= self.rows {
            return 0;
        }
        let at = u64::from(row) * u64::from(self.row_bits) + u64::from(self.shifts[field]);
        let byte = (at / 8) as usize;
        match self.bytes.get(byte..).and_then(|b| b.first_chunk::<8>()) {
            Some(chunk) => (u64::from_le_bytes(*chunk) >> (at % 8)) as u32 & self.masks[field],
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<const N: usize>(rows: &[[u32; N]]) {
        let packed = PackedRows::pack(rows);
        let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&packed).unwrap();
        let archived = rkyv::access::<ArchivedPackedRows, rkyv::rancor::Error>(&bytes).unwrap();
        assert_eq!(archived.len(), rows.len());
        let reader = archived.reader::<N>();
        for (r, values) in rows.iter().enumerate() {
            let row = reader.row(r as u32);
            for (f, &value) in values.iter().enumerate() {
                assert_eq!(reader.field(row, f), value, "row {r} field {f}");
            }
        }
        // Past the end: zeros, no panic.
        let row = reader.row(rows.len() as u32 + 5);
        assert!((0..N).all(|f| reader.field(row, f) == 0));
        // Read as a table of another shape (a damaged archive): zeros.
        let other = archived.reader::<2>();
        assert_eq!(other.field(other.row(0), 1), 0);
    }

    #[test]
    fn every_field_reads_back_whatever_its_width() {
        let narrow: Vec<[u32; 4]> = (0..1000u32)
            .map(|i| [i % 3, i.wrapping_mul(2_654_435_761) >> 7, 0, 1000 - i])
            .collect();
        assert_eq!(PackedRows::pack(&narrow).widths, [2, 25, 0, 10]);
        check(&narrow);
        // Rows wider than one load: field by field.
        let wide: Vec<[u32; 6]> = (0..300u32)
            .map(|i| {
                [
                    u32::MAX - i,
                    i,
                    u32::MAX,
                    i.wrapping_mul(2_654_435_761),
                    7,
                    u32::MAX,
                ]
            })
            .collect();
        assert!(PackedRows::pack(&wide).row_bits > ROW_MAX_BITS);
        check(&wide);
        check::<3>(&[]);
    }
}
