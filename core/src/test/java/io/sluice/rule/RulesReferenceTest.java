package io.sluice.rule;

import io.sluice.ConfigException;
import io.sluice.testing.RepositoryFiles;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * docs/rules.md has one table of every property the parser knows, global and per rule, each with a default and a
 * link to the page that explains it: a property added to the parser and not to the table (or the reverse) fails here.
 */
class RulesReferenceTest {
    private static final Path RULES_PAGE = Path.of("docs", "rules.md");
    private static final String TABLE_HEADER = "| property | meaning | default | more |";
    private static final Pattern LINK = Pattern.compile("\\[[^]]+]\\([^)]+\\)");

    /** One row of the table: the property as written in the first column, and the other cells. */
    private record Row(String property, String meaning, String defaultValue, String more) {
    }

    @Test
    void theTableListsExactlyThePropertiesTheParserKnows() {
        List<Row> rows = table();
        Set<String> globals = new TreeSet<>();
        Set<String> ruleProperties = new TreeSet<>();
        for (Row r : rows) (r.property().startsWith(RuleParser.PREFIX) ? globals : ruleProperties).add(r.property());

        Set<String> knownRuleProperties = new TreeSet<>(RuleParser.RULE_PROPERTIES);
        PlanParser.PLAN_PROPERTIES.forEach(p -> knownRuleProperties.add("plans.<plan>." + p));
        assertThat(globals).as("global properties in " + RULES_PAGE).isEqualTo(new TreeSet<>(RuleParser.GLOBALS));
        assertThat(ruleProperties).as("rule properties in " + RULES_PAGE).isEqualTo(knownRuleProperties);
        assertThat(rows).as("one row per property").hasSize(globals.size() + ruleProperties.size());
        System.out.println(RULES_PAGE + ": " + rows.size() + " properties in one table (" + globals.size() + " global, "
                + ruleProperties.size() + " per rule)");
    }

    @Test
    void everyPropertyHasAMeaningADefaultAndALinkToItsPage() {
        for (Row r : table()) {
            assertThat(r.meaning()).as(r.property() + " meaning").isNotBlank();
            assertThat(r.defaultValue()).as(r.property() + " default").isNotBlank();
            assertThat(LINK.matcher(r.more()).find()).as(r.property() + " link: " + r.more()).isTrue();
        }
    }

    @Test
    void thePageHasOnePropertyTable() {
        String page = RepositoryFiles.read(RULES_PAGE);
        assertThat(page.lines().filter(l -> l.startsWith("| property |"))).as("property tables in " + RULES_PAGE)
                .containsExactly(TABLE_HEADER);
    }

    /** The page's example of a bad file shows its problems in the order start-up reports them. */
    @Test
    void theBadConfigurationExampleIsInTheRealOrder() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> RuleParser.parse(
                Map.of("sluice.rules.posts.rate", "ten/h", "sluice.colour", "blue")));
        assertThat(e.problems()).hasSize(2);
        assertThat(e.problems().get(0)).startsWith("sluice.colour = \"blue\": expected a known property: one of [")
                .endsWith("] or sluice.rules.<name>.<property>");
        assertThat(e.problems().get(1)).isEqualTo(
                "sluice.rules.posts.rate = \"ten/h\": expected <permits>/<period> such as 10/1h, 40/1m, 5/10s, 100/s or 2/500ms"
                        + " (permits from 1 to 1000000000, a period from 1ms to 366d)");
        String page = RepositoryFiles.read(RULES_PAGE);
        assertThat(page).contains("Invalid Sluice configuration (2 problems):\n  - sluice.colour = \"blue\"");
        assertThat(page.indexOf("  - sluice.colour")).isLessThan(page.indexOf("  - " + e.problems().get(1)));
    }

    private static List<Row> table() {
        List<String> lines = RepositoryFiles.read(RULES_PAGE).lines().toList();
        int header = lines.indexOf(TABLE_HEADER);
        assertThat(header).as(TABLE_HEADER + " in " + RULES_PAGE).isNotNegative();
        List<Row> rows = new ArrayList<>();
        for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            String line = lines.get(i);
            String[] cells = line.substring(1, line.length() - 1).split("\\|", -1);
            assertThat(cells).as("cells of " + line).hasSize(4);
            String property = cells[0].trim();
            assertThat(property).as("first cell of " + line).matches("`[^`]+`");
            rows.add(new Row(property.substring(1, property.length() - 1), cells[1].trim(), cells[2].trim(), cells[3].trim()));
        }
        return rows;
    }
}
