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
    private static final int SEARCHED = 1, GATED = 2;

    /** Per state, the next state for each ASCII character. */
    private final int[][] next;
    /** Per state, the kinds (SEARCHED | GATED) of the texts ending there, suffix links' too. */
    private final int[] kinds;
    /** Per state, the lengths of the words ending there (suffix links' too). */
    private final int[][] wordLengths;

    private GateScan(int[][] next, int[] kinds, int[][] wordLengths) {
        this.next = next;
        this.kinds = kinds;
        this.wordLengths = wordLengths;
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
        int[][] next = go.toArray(new int[0][]);
        int[] kinds = new int[n];
        int[][] wordLengths = new int[n][];
        for (int i = 0; i < n; i++) {
            kinds[i] = kind.get(i);
            wordLengths[i] = words.get(i).stream().mapToInt(Integer::intValue).toArray();
        }
        return new GateScan(next, kinds, wordLengths);
    }

    private static int[] filled() {
        int[] a = new int[128];
        Arrays.fill(a, -1);
        return a;
    }

    /** Prefilter.passes(text, gate). */
    boolean passes(String text) {
        int state = 0;
        boolean gated = false, word = false;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            state = c < 128 ? next[state][c] : 0; // no text holds a character past ASCII
            int k = kinds[state];
            if ((k & SEARCHED) != 0) {
                return true;
            }
            gated |= (k & GATED) != 0;
            if (!word) {
                for (int len : wordLengths[state]) {
                    int at = i + 1 - len;
                    if ((at == 0 || text.charAt(at - 1) == ' ')
                            && (i + 1 == n || text.charAt(i + 1) == ' ')) {
                        word = true;
                        break;
                    }
                }
            }
        }
        return word && gated;
    }
}
