package kafkahealth.parse;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * The pattern stages of parse_entries (parsing.matching): which pattern matches an entry the
 * prefilter let through (the first in the table's order whose family the entry allows, one of
 * whose literals its text holds, and whose regex finds a match), which event an unmatched one
 * looked like (the first trigger that matches), and the matched pattern's named groups.
 */
final class Matching {
    private final Spec spec;

    Matching(Spec spec) {
        this.spec = spec;
    }

    /** matching.family_allows. */
    static boolean allows(String entryFamily, String patternFamily) {
        return !entryFamily.equals("kafka".equals(patternFamily) ? "gc" : "kafka");
    }

    private static boolean holdsLiteral(Spec.PatternSpec p, String text) {
        if (p.anchors.length == 0) {
            return true;
        }
        for (String a : p.anchors) {
            if (text.contains(a)) {
                return true;
            }
        }
        return false;
    }

    /** The first matching pattern and its match, or null. */
    Matcher match(String head, String body, String family, Spec.PatternSpec[] found) {
        for (Spec.PatternSpec p : spec.patterns) {
            String text = p.entryScope ? body : head;
            if (!allows(family, p.family) || !holdsLiteral(p, text)) {
                continue;
            }
            Matcher m = p.regex.matcher(text);
            if (m.find()) {
                found[0] = p;
                return m;
            }
        }
        return null;
    }

    /** matching.with_suspects: the event of the first pattern whose trigger matches. */
    String suspect(String head, String body, String family) {
        for (Spec.PatternSpec p : spec.patterns) {
            String text = p.entryScope ? body : head;
            if (allows(family, p.family) && holdsLiteral(p, text)
                    && p.trigger.matcher(text).find()) {
                return p.event;
            }
        }
        return null;
    }

    /**
     * matching.with_groups: regexp_replace of the whole text by "name\x02$n\x01..." then
     * str_to_map(.., "\x01", "\x02"): each named group's text ("" where it took no part). A
     * text that holds the delimiters themselves is split as str_to_map splits it (where Spark
     * would fail on a repeated key, the last one is kept).
     */
    static Map<String, String> groups(Spec.PatternSpec p, Matcher m) {
        Map<String, String> out = new HashMap<>();
        boolean delimited = false;
        String[] values = new String[p.groupNames.length];
        for (int k = 0; k < values.length; k++) {
            String v = m.group(p.groupIndexes[k]);
            values[k] = v == null ? "" : v;
            if (values[k].indexOf('\u0001') >= 0 || values[k].indexOf('\u0002') >= 0) {
                delimited = true;
            }
        }
        if (!delimited) {
            for (int k = 0; k < values.length; k++) {
                out.put(p.groupNames[k], values[k]);
            }
            return out;
        }
        StringBuilder text = new StringBuilder();
        for (int k = 0; k < values.length; k++) {
            if (k > 0) text.append('\u0001');
            text.append(p.groupNames[k]).append('\u0002').append(values[k]);
        }
        for (String pair : text.toString().split("\u0001", -1)) {
            String[] kv = pair.split("\u0002", 2);
            out.put(kv[0], kv.length > 1 ? kv[1] : null);
        }
        return out;
    }
}
