//! Compile-time text and leaf lists: what a static layout type knows about
//! itself as constants, so that a post-monomorphisation check can name the
//! layouts in CuTe notation with decimal numbers.

/// A fixed-capacity string built by `const fn`s; longer text is cut with `...`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Text {
    buf: [u8; Text::CAP],
    len: usize,
}

impl Text {
    const CAP: usize = 400;

    /// The empty text.
    pub const EMPTY: Text = Text {
        buf: [0; Text::CAP],
        len: 0,
    };

    /// Append one ASCII byte.
    pub const fn byte(mut self, b: u8) -> Text {
        if self.len < Self::CAP - 3 {
            self.buf[self.len] = b;
            self.len += 1;
        } else if self.len < Self::CAP {
            while self.len < Self::CAP {
                self.buf[self.len] = b'.';
                self.len += 1;
            }
        }
        self
    }

    /// Append a string (ASCII is all this crate writes).
    pub const fn str(mut self, s: &str) -> Text {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            self = self.byte(b[i]);
            i += 1;
        }
        self
    }

    /// Append another text.
    pub const fn text(mut self, t: Text) -> Text {
        let mut i = 0;
        while i < t.len {
            self = self.byte(t.buf[i]);
            i += 1;
        }
        self
    }

    /// Append a decimal number.
    pub const fn num(mut self, v: usize) -> Text {
        let mut digits = [0u8; 20];
        let mut n = 0;
        let mut x = v;
        loop {
            digits[n] = b'0' + (x % 10) as u8;
            n += 1;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        while n > 0 {
            n -= 1;
            self = self.byte(digits[n]);
        }
        self
    }

    /// Whether nothing was cut.
    pub const fn is_complete(&self) -> bool {
        self.len < Self::CAP
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        let (b, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(b) {
            Ok(s) => s,
            Err(_) => "<non-UTF-8 text>",
        }
    }
}

/// Up to 64 integer leaves in order, each with whether it is static.
#[derive(Clone, Copy)]
pub struct Leaves {
    /// Values (0 for a run-time leaf).
    pub v: [usize; Leaves::CAP],
    /// Whether each leaf is static.
    pub st: [bool; Leaves::CAP],
    /// How many leaves (may exceed `CAP`; the rest are not recorded).
    pub n: usize,
}

impl Leaves {
    /// Capacity.
    pub const CAP: usize = 64;
    /// No leaves.
    pub const EMPTY: Leaves = Leaves {
        v: [0; Leaves::CAP],
        st: [false; Leaves::CAP],
        n: 0,
    };

    /// One leaf.
    pub const fn one(v: Option<usize>) -> Leaves {
        let mut l = Leaves::EMPTY;
        if let Some(x) = v {
            l.v[0] = x;
            l.st[0] = true;
        }
        l.n = 1;
        l
    }

    /// These leaves followed by `o`'s.
    pub const fn concat(mut self, o: Leaves) -> Leaves {
        let mut i = 0;
        while i < o.n {
            if self.n + i < Self::CAP && i < Self::CAP {
                self.v[self.n + i] = o.v[i];
                self.st[self.n + i] = o.st[i];
            }
            i += 1;
        }
        self.n += o.n;
        self
    }

    /// Whether every leaf is static and recorded.
    pub const fn all_static(&self) -> bool {
        if self.n > Self::CAP {
            return false;
        }
        let mut i = 0;
        while i < self.n {
            if !self.st[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}
