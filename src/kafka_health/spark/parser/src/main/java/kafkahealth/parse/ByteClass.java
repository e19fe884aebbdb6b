package kafkahealth.parse;

import java.util.regex.Pattern;

/**
 * A one-character class that matches only ASCII characters, as a table of the bytes it
 * matches: in valid UTF-8 an ASCII byte is always its own character (every byte of a longer
 * sequence has its high bit set), so searching a text's bytes finds what the regex's
 * {@code find()} finds in its decoded text, without decoding or the regex's per-character
 * dispatch.
 */
final class ByteClass {
    private final boolean[] matches = new boolean[128];
    /** Every matched character is below this or DEL (0x7F): eight bytes at a time rule out
     * the class where none is (most texts: its class is the control characters). */
    private int below;
    private boolean del;

    private ByteClass() {}

    /** The table of {@code p}, or null when {@code p} matches a character of the BMP outside
     * ASCII, or anything but one character. */
    static ByteClass of(Pattern p) {
        ByteClass c = new ByteClass();
        for (char ch = 0; ch < 128; ch++) {
            c.matches[ch] = p.matcher(String.valueOf(ch)).matches();
        }
        for (char ch = 128; ch < Character.MIN_SURROGATE; ch++) { // the rest of the BMP
            if (p.matcher(String.valueOf(ch)).find()) {
                return null;
            }
        }
        for (int ch = Character.MAX_SURROGATE + 1; ch <= 0xFFFF; ch++) {
            if (p.matcher(String.valueOf((char) ch)).find()) {
                return null;
            }
        }
        for (String two : new String[] {"aa", "  ", "\t\t", "\u0000\u0000", "a\u0000"}) {
            if (p.matcher(two).matches()) {
                return null; // more than one character
            }
        }
        for (int ch = 0; ch < 127; ch++) {
            if (c.matches[ch]) {
                c.below = ch + 1;
            }
        }
        c.del = c.matches[127];
        return c;
    }

    /**
     * Whether the valid UTF-8 {@code bytes} hold a character this class matches: null when
     * undecided, for a text with a character outside the BMP (its table does not cover them:
     * the regex decides).
     */
    Boolean in(byte[] bytes) {
        boolean supplementary = false;
        int i = 0, n = bytes.length;
        for (; i < n; i += 8) {
            int to = Math.min(i + 8, n);
            if (to == i + 8) {
                long x = ByteWords.at(bytes, i);
                long suspect = ByteWords.below(x, below) | (x & ByteWords.HIGH)
                        | (del ? ByteWords.equal(x, 127) : 0);
                if (suspect == 0) {
                    continue; // eight ASCII bytes the class does not match
                }
            }
            for (int j = i; j < to; j++) {
                byte b = bytes[j];
                if (b >= 0) {
                    if (matches[b]) {
                        return true;
                    }
                } else if ((b & 0xF8) == 0xF0) { // a 4-byte sequence's first byte
                    supplementary = true;
                }
            }
        }
        return supplementary ? null : false;
    }
}
