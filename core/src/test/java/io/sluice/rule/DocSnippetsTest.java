package io.sluice.rule;

import io.sluice.ConfigException;
import io.sluice.testing.RepositoryFiles;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every fenced {@code properties} snippet a newcomer may copy (README.md, docs/*.md, examples/README.md) parses as a
 * rules file. A snippet that is deliberately a fragment or deliberately wrong says so with
 * {@value #NOT_A_RULES_FILE} on the line before its fence; keep that rare.
 */
class DocSnippetsTest {
    static final String NOT_A_RULES_FILE = "<!-- not a whole rules file -->";
    private static final String FENCE = "```properties";

    /** One snippet: where it is (page and line of its fence) and its text. */
    private record Snippet(String where, String text, boolean marked) {
    }

    @Test
    void everyPropertiesSnippetParses() {
        List<Snippet> snippets = new ArrayList<>();
        RepositoryFiles.markdownPages().forEach(page -> snippets.addAll(snippets(page)));
        List<String> failures = new ArrayList<>();
        int parsed = 0;
        for (Snippet s : snippets) {
            if (s.marked()) {
                System.out.println("not parsed (marked): " + s.where());
                continue;
            }
            try {
                RuleParser.parse(properties(s.text()));
                parsed++;
            } catch (ConfigException e) {
                failures.add(s.where() + ": " + e.getMessage());
            }
        }
        System.out.println("properties snippets parsed: " + parsed + " of " + snippets.size());
        assertThat(failures).as("snippets that do not parse").isEmpty();
        assertThat(parsed).as("snippets parsed").isGreaterThan(snippets.size() / 2);
    }

    private static List<Snippet> snippets(Path page) {
        List<String> lines = RepositoryFiles.read(page).lines().toList();
        List<Snippet> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).trim().equals(FENCE)) continue;
            boolean marked = i > 0 && lines.get(i - 1).trim().equals(NOT_A_RULES_FILE);
            StringBuilder text = new StringBuilder();
            int fence = i;
            for (i++; i < lines.size() && !lines.get(i).trim().startsWith("```"); i++) text.append(lines.get(i)).append('\n');
            out.add(new Snippet(page + ":" + (fence + 1), text.toString(), marked));
        }
        return out;
    }

    private static Map<String, String> properties(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> map = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(n -> map.put(n, p.getProperty(n)));
        return map;
    }
}
