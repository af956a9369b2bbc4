package io.almanac.samples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget.CodeUnitCallTarget;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.almanac.samples.parsingfixture.ParsesAMessage;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * No main code recovers a fact from a message (facts travel as typed fields and records; text is made
 * of them only at the edge), checked by types over the compiled main classes of runtime, persistence,
 * http and samples (this module depends on all of them). A message-like text is what {@code
 * Throwable.getMessage()} returns, or a public no-argument accessor named {@code reason}, {@code
 * detail}, {@code note}, {@code summary} or {@code message} returning a String on an io.almanac type
 * ({@code WindowView.reason()}, {@code WindowState}'s and {@code InstanceRow}'s reasons, the journal's
 * events); parsing is a String's {@code contains}, {@code startsWith}, {@code endsWith}, {@code
 * matches}, {@code indexOf}, {@code lastIndexOf}, {@code split}, {@code replaceFirst} or {@code
 * regionMatches}, or {@code Pattern.matcher/matches}. Two rules:
 *
 * <ul>
 *   <li>broad (ArchUnit only): no method both reads a message-like text and calls a parsing method. A
 *       heuristic (the two calls need not touch the same text), so its allow-list holds methods that do
 *       both on different texts, each with why;
 *   <li>precise ({@link MessageFlow}, a data flow over the same classes' bytecode): no message-like
 *       text (as above, or a String local, parameter, field or accessor named like a detail, a reason,
 *       a message or a note) reaches a parsing call, nor {@code equals}, {@code Objects.equals} or a
 *       switch, whether kept in a local, reshaped, captured by a lambda or handed to a helper. Its
 *       allow-list holds the legitimate parsers and the methods that only cut or quote a text to show it.
 * </ul>
 *
 * Both report every offender at once, and an allow-list entry that matches nothing fails the test, so
 * the lists never outlive their offenders. The fixture {@link ParsesAMessage} shows each rule can fail.
 * This replaces persistence's NoMessageParsingTest, a regex scan of the sources by variable names: the
 * precise rule sees each of its shapes in the bytecode, and more (a text in a local of any name).
 */
class NoMessageParsingRulesTest {

  /** Every main class of the modules (not the test kit, nor any test class). */
  private static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.almanac..")
      .that(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage("io.almanac.testkit..")));

  /** A method, the rules that allow it (broad, precise), and why it may do what they forbid. */
  private record Allowed(String className, String method, boolean broad, boolean precise, String why) {}

  private static final String AUDIT = "io.almanac.persistence.audit.";
  private static final String NODE = "io.almanac.internal.node.";

  /**
   * The methods allowed. Both rules allow the legitimate parsers (a third party's message, which has no
   * typed field; the audit's one reader of the text legacy journals carry, called only when the typed
   * fields are null) and the offenders not removed yet (NOT DONE, for the lead). The broad rule also
   * allows the methods that read a message and parse another text; the precise rule, the methods that
   * only reshape a message-like text for display.
   */
  private static final List<Allowed> ALLOWED = List.of(
      new Allowed("io.almanac.CronSchedule", "readable", true, true, "rewords cron-utils' exception text (a third party's)"),
      new Allowed(AUDIT + "LegacyReasons", "decision", false, true, "legacy final failures: the decision is only in the reason"),
      new Allowed(AUDIT + "LegacyReasons", "lastCause", false, true, "legacy final failures: the last cause is only in the reason"),
      new Allowed(AUDIT + "LegacyReasons", "cancelCause", false, true, "legacy cancels: the cause is only in the reason"),
      // display only: the text is cut or quoted, no fact is read out of it
      new Allowed("io.almanac.StepTypeMismatchException", "firstLine", true, true, "shows a cause's message to its first line"),
      new Allowed(AUDIT + "Timeline", "csvField", false, true, "quotes a CSV field (an event's detail among others)"),
      // the broad rule's false positives: the message is passed on or shown, the parsing is of another text
      new Allowed("io.almanac.TaskSpecChecks", "validateRichSchedule", true, false, "splits the user's cron; passes e.reason() on"),
      new Allowed("io.almanac.http.WindowFilter", "parse", true, false, "splits a query parameter; shows e.reason()"),
      new Allowed(NODE + "ConfigTasks$Node", "rename", true, false, "tests e.field()'s prefix; rewords the reason with replace"),
      new Allowed(NODE + "ConfigTasks", "budgetPerDay", true, false, "tests e.field()'s prefix; passes e.reason() on"),
      new Allowed(NODE + "ConfigTasks", "calendars", true, false, "tests e.field()'s prefix; passes e.reason() on"),
      new Allowed(AUDIT + "Explainer", "inSkipRange", true, false, "cuts its own verdict text; narrates the range's detail"),
      new Allowed("io.almanac.samples.ApiClient", "<init>", true, false, "tests the URL's trailing slash; shows the message"),
      new Allowed("io.almanac.samples.LiveTable", "downReport", true, false, "splits its own group key; shows the reason"));

  @Test
  @DisplayName("the imported classes are every module's main classes")
  void importsTheModules() {
    for (String c : List.of("io.almanac.Almanac", "io.almanac.persistence.audit.LegacyReasons",
        "io.almanac.http.Problem", "io.almanac.samples.AlmanacCli")) {
      assertTrue(MAIN.contain(c), "not imported: " + c);
    }
    assertTrue(MAIN.stream().noneMatch(c -> c.getName().startsWith("io.almanac.samples.parsingfixture")), "test classes imported");
    // the precise rule reads locals by name: the main classes must be compiled with their names (javac -g)
    assertTrue(MessageFlow.namesLocals(MAIN.get("io.almanac.persistence.audit.LegacyReasons")), "main classes without local names");
  }

  @Test
  @DisplayName("broad: no main method both reads a message-like text and parses a text")
  void broadRule() {
    List<Allowed> allowed = ALLOWED.stream().filter(Allowed::broad).toList();
    EvaluationResult result = broad(allowed).evaluate(MAIN);
    assertTrue(!result.hasViolation(), result.getFailureReport().toString());
    List<String> all = broad(List.of()).evaluate(MAIN).getFailureReport().getDetails();
    List<Allowed> stale = allowed.stream()
        .filter(a -> all.stream().noneMatch(d -> d.startsWith(a.className() + "." + a.method() + "("))).toList();
    assertTrue(stale.isEmpty(), "allow-list entries the broad rule no longer needs (remove them): " + stale);
  }

  @Test
  @DisplayName("precise: no message-like text reaches a parsing call, equals or a switch")
  void preciseRule() {
    Set<MessageFlow.Finding> found = MessageFlow.findings(MAIN);
    List<Allowed> allowed = ALLOWED.stream().filter(Allowed::precise).toList();
    List<MessageFlow.Finding> offending = found.stream()
        .filter(f -> allowed.stream().noneMatch(a -> MessageFlow.sameFinding(f, a.className(), a.method()))).toList();
    assertTrue(offending.isEmpty(), "main code parses a message (carry the fact as a typed field instead):\n  "
        + offending.stream().map(Object::toString).collect(Collectors.joining("\n  ")));
    List<Allowed> stale = allowed.stream()
        .filter(a -> found.stream().noneMatch(f -> MessageFlow.sameFinding(f, a.className(), a.method()))).toList();
    assertTrue(stale.isEmpty(), "allow-list entries that match no code any more (remove them): " + stale);
  }

  @Test
  @DisplayName("both rules report the fixture's message parsing")
  void theRulesCanFail() {
    JavaClasses fixture = new ClassFileImporter().importClasses(ParsesAMessage.class);
    EvaluationResult result = broad(List.of()).evaluate(fixture);
    assertTrue(result.hasViolation(), "the broad rule saw nothing in the fixture");
    List<String> details = result.getFailureReport().getDetails();
    String name = ParsesAMessage.class.getName();
    for (String m : List.of("isUnique", "hasCode", "onAccessor", "compared", "captured", "unrelated")) {
      assertTrue(details.stream().anyMatch(d -> d.contains(name + "." + m + "(")), "broad rule missed " + m + ": " + details);
    }
    assertEquals(6, details.size(), "broad rule: " + details);

    Set<String> precise = MessageFlow.findings(fixture).stream().map(MessageFlow.Finding::method).collect(Collectors.toSet());
    assertEquals(Set.of("isUnique", "hasCode", "parse", "compares", "named", "onAccessor", "compared",
        "lambda$captured$0"), precise, "precise rule");
  }

  /** The broad rule, skipping the allowed methods. */
  static ArchRule broad(List<Allowed> allowed) {
    DescribedPredicate<JavaCodeUnit> isAllowed = DescribedPredicate.describe("allowed",
        u -> allowed.stream().anyMatch(a -> u.getOwner().getName().equals(a.className()) && u.getName().equals(a.method())));
    return codeUnits().that(DescribedPredicate.not(isAllowed)).should(notReadAMessageAndParseIt()).allowEmptyShould(true);
  }

  private static ArchCondition<JavaCodeUnit> notReadAMessageAndParseIt() {
    return new ArchCondition<>("not both read a message-like text and parse a text") {
      @Override
      public void check(JavaCodeUnit unit, ConditionEvents events) {
        Optional<JavaCall<?>> read = unit.getCallsFromSelf().stream().filter(c -> readsAMessage(c.getTarget())).findFirst();
        Optional<JavaCall<?>> parse = unit.getCallsFromSelf().stream().filter(c -> parses(c.getTarget())).findFirst();
        boolean both = read.isPresent() && parse.isPresent();
        String message = both
            ? unit.getFullName() + " reads " + describe(read.get()) + " and parses with " + describe(parse.get())
            : unit.getFullName() + " does not parse a message";
        events.add(new SimpleConditionEvent(unit, !both, message));
      }
    };
  }

  private static String describe(JavaCall<?> call) {
    return call.getTarget().getOwner().getSimpleName() + "." + call.getTarget().getName() + " (line " + call.getLineNumber() + ")";
  }

  /** Throwable.getMessage(), or a public no-argument accessor of an io.almanac type returning a message-like String. */
  static boolean readsAMessage(CodeUnitCallTarget target) {
    if (!target.getRawReturnType().isEquivalentTo(String.class) || !target.getRawParameterTypes().isEmpty()) {
      return false;
    }
    JavaClass owner = target.getOwner();
    if (target.getName().equals("getMessage") || target.getName().equals("getLocalizedMessage")) {
      return MessageFlow.isThrowable(owner.getName()); // owner may be a stub (archunit.properties)
    }
    return owner.getPackageName().startsWith("io.almanac") && MessageFlow.TEXT_ACCESSORS.contains(target.getName())
        && target.resolveMember().map(m -> m.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC))
            .orElse(true);
  }

  private static final Set<String> STRING_PARSERS = Set.of("contains", "startsWith", "endsWith", "matches", "indexOf",
      "lastIndexOf", "split", "replaceFirst", "regionMatches");

  /** A String's parsing method, or Pattern.matcher/matches. */
  static boolean parses(CodeUnitCallTarget target) {
    JavaClass owner = target.getOwner();
    if (owner.isEquivalentTo(String.class)) {
      return STRING_PARSERS.contains(target.getName());
    }
    return owner.isEquivalentTo(java.util.regex.Pattern.class) && Set.of("matcher", "matches").contains(target.getName());
  }
}
