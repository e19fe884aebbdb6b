package kafkahealth.parse;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Spark SQL's string built-ins as the parse uses them, on Java Strings: Spark counts a text's
 * characters as code points and its size in UTF-8 bytes, trims only spaces, casts with its own
 * rules. Each method names the built-in it stands for.
 */
final class SparkText {
    private SparkText() {}

    /** {@code octet_length}: the UTF-8 bytes of {@code s}. */
    static int utf8Length(String s) {
        int n = s.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                if (c < 0x800) {
                    bytes += 1;
                } else if (Character.isHighSurrogate(c) && i + 1 < n
                        && Character.isLowSurrogate(s.charAt(i + 1))) {
                    bytes += 2; // 4 bytes for the pair's 2 chars
                    i++;
                } else {
                    bytes += 2;
                }
            }
        }
        return bytes;
    }

    /** The UTF-16 index of code point {@code cp} of {@code s}; -1 when it has fewer. */
    static int cpOffset(String s, int cp) {
        int n = s.length();
        int limit = Math.min(n, cp);
        boolean plain = true;
        for (int i = 0; i < limit; i++) {
            if (Character.isSurrogate(s.charAt(i))) {
                plain = false;
                break;
            }
        }
        if (plain) {
            return cp <= n ? cp : -1;
        }
        if (s.codePointCount(0, n) < cp) {
            return -1;
        }
        return s.offsetByCodePoints(0, cp);
    }

    /** {@code substring(s, pos, len)} for pos >= 1: {@code len} code points from code point pos-1. */
    static String substring(String s, int pos, int len) {
        int from = cpOffset(s, pos - 1);
        if (from < 0) {
            return "";
        }
        int to = cpOffset(s, pos - 1 + len);
        return to < 0 ? s.substring(from) : s.substring(from, to);
    }

    /** Whether code points [at, at + text) of {@code s} are {@code text} (ASCII). */
    static boolean hasAt(String s, int at, String text) {
        int from = cpOffset(s, at);
        return from >= 0 && s.startsWith(text, from);
    }

    /** {@code columns.cut}: the first {@code chars} code points, whole when its bytes fit. */
    static String cut(String s, int chars) {
        if (s.length() <= chars || utf8Length(s) <= chars) {
            return s;
        }
        int to = cpOffset(s, chars);
        return to < 0 ? s : s.substring(0, to);
    }

    /** {@code substring_index(s, "\n", 1)}. */
    static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    static String ltrimSpaces(String s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) == ' ') i++;
        return s.substring(i);
    }

    static String rtrimSpaces(String s) {
        int j = s.length();
        while (j > 0 && s.charAt(j - 1) == ' ') j--;
        return s.substring(0, j);
    }

    /** {@code trim}: spaces only, both ends. */
    static String trimSpaces(String s) {
        return rtrimSpaces(ltrimSpaces(s));
    }

    /** Whether the text's first character that is not a space is {@code c}. */
    static boolean firstNonSpaceIs(String s, char c) {
        for (int i = 0; i < s.length(); i++) {
            char x = s.charAt(i);
            if (x != ' ') {
                return x == c;
            }
        }
        return false;
    }

    /** {@code empty_to_null}. */
    static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /**
     * {@code UTF8String.fromString(s).toString()}: a lone surrogate (a JSON escape can give one)
     * is written as "?" in UTF-8, and read back so.
     */
    static String utf8RoundTrip(String s) {
        if (s == null) {
            return null;
        }
        for (int i = 0; i < s.length(); i++) {
            if (Character.isSurrogate(s.charAt(i))) {
                return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            }
        }
        return s;
    }

    /**
     * {@code is_valid_utf8}, then the text; null when the bytes are not UTF-8. Bytes that are
     * all ASCII ({@link #isAscii}) need no decoder: each is its own character (the caller's
     * fast path, which also hands them to Jackson's byte parser).
     */
    static String decodeUtf8(byte[] bytes) {
        try {
            CharBuffer out = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            return out.toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static boolean isAscii(byte[] bytes) {
        return ByteWords.isAscii(bytes);
    }

    /** {@code cast(binary as string)}, then read as a Java String (malformed bytes replaced). */
    static String lenientUtf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    // ---- casts (try_cast: null where it fails) ----

    private static boolean trimmable(char c) {
        return c < 0x80 && (Character.isWhitespace(c) || Character.isISOControl(c));
    }

    /** {@code try_cast(s as bigint)}: trimmed of blanks and controls, an optional sign, digits. */
    static Long tryLong(String s) {
        if (s == null) {
            return null;
        }
        int i = 0, j = s.length();
        while (i < j && trimmable(s.charAt(i))) i++;
        while (j > i && trimmable(s.charAt(j - 1))) j--;
        if (i == j) {
            return null;
        }
        boolean negative = false;
        char first = s.charAt(i);
        if (first == '-' || first == '+') {
            negative = first == '-';
            i++;
            if (i == j) {
                return null;
            }
        }
        long result = 0;
        for (; i < j; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            int digit = c - '0';
            if (result < (Long.MIN_VALUE + digit) / 10) {
                return null;
            }
            result = result * 10 - digit;
        }
        if (!negative) {
            if (result == Long.MIN_VALUE) {
                return null;
            }
            result = -result;
        }
        return result;
    }

    /** {@code try_cast(s as int)}. */
    static Integer tryInt(String s) {
        Long v = tryLong(s);
        if (v == null || v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            return null;
        }
        return (int) (long) v;
    }

    /** {@code try_cast(s as double)}. */
    static Double tryDouble(String s) {
        if (s == null) {
            return null;
        }
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            String t = s.trim().toLowerCase(java.util.Locale.ROOT);
            switch (t) {
                case "inf": case "+inf": case "infinity": case "+infinity":
                    return Double.POSITIVE_INFINITY;
                case "-inf": case "-infinity":
                    return Double.NEGATIVE_INFINITY;
                case "nan":
                    return Double.NaN;
                default:
                    return null;
            }
        }
    }

    /** {@code round(v, scale)} on a double: HALF_UP on its decimal text. */
    static Double round(Double v, int scale) {
        if (v == null) {
            return null;
        }
        if (v.isNaN() || v.isInfinite()) {
            return v;
        }
        BigDecimal d = new BigDecimal(Double.toString(v), MathContext.DECIMAL128);
        return d.setScale(scale, RoundingMode.HALF_UP).doubleValue();
    }

    // ---- case mapping (UTF8String: ASCII by character, else the JVM's String mapping) ----

    private static boolean ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) return false;
        }
        return true;
    }

    /** {@code lower}. */
    static String lower(String s) {
        if (s == null) return null;
        if (!ascii(s)) return s.toLowerCase();
        char[] out = s.toCharArray();
        for (int i = 0; i < out.length; i++) out[i] = Character.toLowerCase(out[i]);
        return new String(out);
    }

    /** {@code upper}. */
    static String upper(String s) {
        if (s == null) return null;
        if (!ascii(s)) return s.toUpperCase();
        char[] out = s.toCharArray();
        for (int i = 0; i < out.length; i++) out[i] = Character.toUpperCase(out[i]);
        return new String(out);
    }

    // ---- regexes (java.util.regex, as Spark's rlike / regexp_extract / regexp_replace) ----

    /** {@code rlike}. */
    static boolean find(Pattern p, String s) {
        return p.matcher(s).find();
    }

    /** {@code regexp_extract(s, p, group)}: "" when no match or the group took no part. */
    static String extract(Pattern p, String s, int group) {
        if (s == null) {
            return null;
        }
        Matcher m = p.matcher(s);
        if (!m.find()) {
            return "";
        }
        String g = m.group(group);
        return g == null ? "" : g;
    }

    /** {@code regexp_replace(s, p, replacement)}. */
    static String replace(Pattern p, String s, String replacement) {
        if (s == null) {
            return null;
        }
        return p.matcher(s).replaceAll(replacement);
    }
}
