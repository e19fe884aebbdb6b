package kafkahealth.parse;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One prefilter gate ({@link Spec.Gate}) searched in one pass over the text: an Aho-Corasick
 * automaton over its searched, gated and word texts (ASCII), whose answer is
 * {@link Prefilter}'s: a searched text anywhere, or a word standing as a whole token between
 * spaces and a gated text anywhere. The gate's 100-odd {@code String.contains} calls each read
 * the whole text; this reads it once.
 */
final class GateScan {
    private static final int SEARCHED = 1, GATED = 2, WORDS = 4;
    /** A transition's low bit: the state it enters has texts ending there. */
    private static final int MARKED = 1;

    /**
     * Every state's 128 transitions in one array: entry {@code state * 128 + c} holds the next
     * state times 128 (its row's start), its low bit {@link #MARKED}. One array read a character
     * (a row array per state cost two reads and a bounds check more, and was the parse's
     * largest cost: 19 % of the job's executor samples, JFR).
     */
    private final int[] table;
    /** Per state, the kinds (SEARCHED | GATED | WORDS) of the texts ending there, suffix links'
     * too. */
    private final byte[] kinds;
    /** Per state, the lengths of the words ending there (suffix links' too). */
    private final int[][] wordLengths;

    /**
     * A skip search over the searched and gated texts (Wu-Manber, two-byte blocks): with no
     * such text in a record the gate cannot pass (a word counts only beside a gated text), and
     * most records hold none. Per block, how far the window may move ({@link #MIN_SKIP_LENGTH}
     * or more bytes: the shortest such text); null when a text is shorter, or none: then the
     * automaton reads every byte.
     */
    private final byte[] shifts;
    /** The blocks that start a searched or gated text (a window that ends where a text's
     * first {@link #shortest} bytes may end is checked for its first two). */
    private final long[] starts;
    private final int shortest;
    /** The shortest text length worth a skip search (its longest move: one less). */
    private static final int MIN_SKIP_LENGTH = 5;
    private static final int BLOCKS = 1 << 12, MAX_SKIP = 32;

    private GateScan(int[] table, byte[] kinds, int[][] wordLengths, String[] found) {
        this.table = table;
        this.kinds = kinds;
        this.wordLengths = wordLengths;
        int m = Integer.MAX_VALUE;
        for (String s : found) {
            m = Math.min(m, s.length());
        }
        if (found.length == 0 || m < MIN_SKIP_LENGTH) {
            shifts = null;
            starts = null;
            shortest = 0;
            return;
        }
        m = Math.min(m, MAX_SKIP); // any prefix of every text will do: a shift is a byte
        shortest = m;
        shifts = new byte[BLOCKS];
        Arrays.fill(shifts, (byte) (m - 1));
        starts = new long[BLOCKS / 64];
        for (String s : found) {
            for (int j = 1; j < m; j++) { // the block of bytes j-1 and j of the text's first m
                int b = block(s.charAt(j - 1), s.charAt(j));
                shifts[b] = (byte) Math.min(shifts[b], m - 1 - j);
            }
            int b = block(s.charAt(0), s.charAt(1));
            starts[b >>> 6] |= 1L << b;
        }
    }

    /** Two bytes' block (a hash: two blocks that share one only move less). */
    private static int block(int first, int second) {
        return ((first & 0xff) << 5 ^ (second & 0xff)) & (BLOCKS - 1);
    }

    /** The automaton of {@code gate}, or null when one of its texts is not ASCII or empty. */
    static GateScan of(Spec.Gate gate) {
        List<int[]> go = new ArrayList<>();
        List<Integer> kind = new ArrayList<>();
        List<List<Integer>> words = new ArrayList<>();
        go.add(filled());
        kind.add(0);
        words.add(new ArrayList<>());
        String[][] texts = {gate.searched, gate.gated, gate.words};
        for (int t = 0; t < texts.length; t++) {
            for (String s : texts[t]) {
                if (s.isEmpty()) {
                    return null;
                }
                int state = 0;
                for (int i = 0; i < s.length(); i++) {
                    char c = s.charAt(i);
                    if (c >= 128) {
                        return null;
                    }
                    if (go.get(state)[c] < 0) {
                        go.get(state)[c] = go.size();
                        go.add(filled());
                        kind.add(0);
                        words.add(new ArrayList<>());
                    }
                    state = go.get(state)[c];
                }
                if (t == 0) {
                    kind.set(state, kind.get(state) | SEARCHED);
                } else if (t == 1) {
                    kind.set(state, kind.get(state) | GATED);
                } else {
                    words.get(state).add(s.length());
                }
            }
        }
        int n = go.size();
        int[] fail = new int[n];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int c = 0; c < 128; c++) {
            int s = go.get(0)[c];
            if (s < 0) {
                go.get(0)[c] = 0;
            } else {
                fail[s] = 0;
                queue.add(s);
            }
        }
        while (!queue.isEmpty()) { // breadth first: a state's suffix link is complete first
            int r = queue.poll();
            kind.set(r, kind.get(r) | kind.get(fail[r]));
            words.get(r).addAll(words.get(fail[r]));
            for (int c = 0; c < 128; c++) {
                int s = go.get(r)[c];
                if (s < 0) {
                    go.get(r)[c] = go.get(fail[r])[c];
                } else {
                    fail[s] = go.get(fail[r])[c];
                    queue.add(s);
                }
            }
        }
        byte[] kinds = new byte[n];
        int[][] wordLengths = new int[n][];
        for (int i = 0; i < n; i++) {
            wordLengths[i] = words.get(i).stream().mapToInt(Integer::intValue).toArray();
            kinds[i] = (byte) (kind.get(i) | (wordLengths[i].length > 0 ? WORDS : 0));
        }
        int[] table = new int[n * 128];
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < 128; c++) {
                int to = go.get(i)[c];
                table[i * 128 + c] = to * 128 | (kinds[to] != 0 ? MARKED : 0);
            }
        }
        String[] found = new String[gate.searched.length + gate.gated.length];
        System.arraycopy(gate.searched, 0, found, 0, gate.searched.length);
        System.arraycopy(gate.gated, 0, found, gate.searched.length, gate.gated.length);
        return new GateScan(table, kinds, wordLengths, found);
    }

    private static int[] filled() {
        int[] a = new int[128];
        Arrays.fill(a, -1);
        return a;
    }

    /**
     * Prefilter.passes(text, gate) of the text's UTF-8 {@code bytes}: its texts are ASCII, and
     * every byte of a longer character has its high bit set (none is a space), so they are
     * found, and words stand between spaces, exactly where they do in the text. A byte array
     * reads faster than String.charAt's checks (JFR, benchmarks/tally_loop.py).
     */
    boolean passes(byte[] bytes) {
        return (shifts == null || mayHoldText(bytes)) && scan(bytes);
    }

    /**
     * Whether a searched or gated text may be in {@code bytes}: false only when none is. A
     * window of {@link #shortest} bytes moves by its last block's shift; where that is 0 and
     * the window starts with a text's first block, one may start there (then the automaton
     * reads the whole record, as without this search).
     */
    private boolean mayHoldText(byte[] bytes) {
        int m = shortest;
        for (int end = m - 1; end < bytes.length; ) {
            int shift = shifts[block(bytes[end - 1], bytes[end])];
            if (shift > 0) {
                end += shift;
                continue;
            }
            int first = block(bytes[end - m + 1], bytes[end - m + 2]);
            if ((starts[first >>> 6] & 1L << first) != 0) {
                return true;
            }
            end++;
        }
        return false;
    }

    /** The automaton over every byte (see {@link #passes}). */
    private boolean scan(byte[] bytes) {
        int row = 0; // the state times 128
        boolean gated = false, word = false;
        int n = bytes.length;
        for (int i = 0; i < n; i++) {
            int c = bytes[i];
            if (c < 0) { // no text holds a character past ASCII: back to the root
                row = 0;
                continue;
            }
            int t = table[row + c];
            row = t & -128;
            if ((t & MARKED) == 0) {
                continue;
            }
            int k = kinds[row >>> 7];
            if ((k & SEARCHED) != 0) {
                return true;
            }
            gated |= (k & GATED) != 0;
            if (!word && (k & WORDS) != 0 && (i + 1 == n || bytes[i + 1] == ' ')) {
                word = startsToken(bytes, i, wordLengths[row >>> 7]);
            }
        }
        return word && gated;
    }

    /** Whether a word of one of {@code lengths} ending at {@code i} starts a token (the text
     * or a space before it; a space or the end after it is checked first). */
    private static boolean startsToken(byte[] text, int i, int[] lengths) {
        for (int len : lengths) {
            int at = i + 1 - len;
            if (at == 0 || text[at - 1] == ' ') {
                return true;
            }
        }
        return false;
    }
}
