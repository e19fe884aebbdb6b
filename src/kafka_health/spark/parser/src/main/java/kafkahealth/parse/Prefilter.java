package kafkahealth.parse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * matching.with_maybe: whether a usable entry looks like any event at all, by plain searches of
 * its bounded text (the prefilter's texts of parsing.prefilter, each family's own), or, where
 * some trigger has no literal, by the union of the triggers.
 */
final class Prefilter {
    private final Spec spec;
    /** Each gate's one-pass scan ({@link GateScan}; null: its texts searched one by one), built
     * once per JVM with the spec: a UDF object is deserialized for every task. */
    private final GateScan[] scans;

    Prefilter(Spec spec) {
        this.spec = spec;
        scans = spec.gateScans;
    }

    boolean maybe(String body, String family) {
        if (spec.gates == null) {
            return spec.anyTrigger.matcher(body).find();
        }
        byte[] bytes = null;
        for (int i = 0; i < scans.length; i++) {
            Spec.Gate gate = spec.gates[i];
            if (gate.searched.length == 0 && gate.words.length == 0) {
                continue;
            }
            if (!Matching.allows(family, gate.family)) {
                continue;
            }
            if (scans[i] == null ? passes(body, gate)
                    : scans[i].passes(bytes != null ? bytes
                            : (bytes = body.getBytes(StandardCharsets.UTF_8)))) {
                return true;
            }
        }
        return false;
    }

    /** matching.passes_prefilter (FamilyPrefilter.passes), a text at a time. */
    private static boolean passes(String text, Spec.Gate gate) {
        for (String t : gate.searched) {
            if (text.contains(t)) {
                return true;
            }
        }
        if (gate.words.length == 0 || !anyToken(text, gate.words)) {
            return false;
        }
        for (String t : gate.gated) {
            if (text.contains(t)) {
                return true;
            }
        }
        return false;
    }

    /** arrays_overlap(split(text, " "), words): a word is a whole token between spaces. */
    private static boolean anyToken(String text, String[] words) {
        for (String w : words) {
            int from = 0;
            while (true) {
                int at = text.indexOf(w, from);
                if (at < 0) {
                    break;
                }
                int end = at + w.length();
                if ((at == 0 || text.charAt(at - 1) == ' ')
                        && (end == text.length() || text.charAt(end) == ' ')) {
                    return true;
                }
                from = at + 1;
            }
        }
        return false;
    }

    /**
     * For tests (tests/spark/test_gate_scan.py): each gate's scan ({@link GateScan}, its skip
     * search and automaton) against its texts searched one by one, over {@code texts} (a JSON
     * array); the [gate, text, scan's answer] of every text where they differ, and how many
     * passed by the texts (JSON).
     */
    public static String differences(String specJson, String texts) throws IOException {
        Spec spec = Spec.of(specJson);
        ObjectMapper json = new ObjectMapper();
        ArrayNode differ = json.createArrayNode();
        int passed = 0;
        for (JsonNode t : json.readTree(texts)) {
            String text = t.asText();
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < spec.gates.length; i++) {
                if (spec.gateScans[i] == null) {
                    continue;
                }
                boolean expected = passes(text, spec.gates[i]);
                passed += expected ? 1 : 0;
                if (spec.gateScans[i].passes(bytes) != expected) {
                    differ.addArray().add(spec.gates[i].family).add(text).add(!expected);
                }
            }
        }
        return json.createObjectNode().put("passed", passed).set("differ", differ).toString();
    }
}
