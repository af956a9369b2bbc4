package io.almanac.http;

import com.oracle.js.parser.ErrorManager;
import com.oracle.js.parser.Parser;
import com.oracle.js.parser.ParserException;
import com.oracle.js.parser.ScriptEnvironment;
import com.oracle.js.parser.Source;
import com.oracle.js.parser.TokenType;
import com.oracle.js.parser.ir.BinaryNode;
import com.oracle.js.parser.ir.Expression;
import com.oracle.js.parser.ir.FunctionNode;
import com.oracle.js.parser.ir.IdentNode;
import com.oracle.js.parser.ir.LexicalContext;
import com.oracle.js.parser.ir.LiteralNode;
import com.oracle.js.parser.ir.Node;
import com.oracle.js.parser.ir.Scope;
import com.oracle.js.parser.ir.UnaryNode;
import com.oracle.js.parser.ir.VarNode;
import com.oracle.js.parser.ir.visitor.NodeVisitor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A lint for the dashboard's JavaScript, run by {@link DashboardScriptLintTest} with Java alone (no
 * Node): each file is parsed as an ES module (ES2024, strict) by GraalJS's parser ({@code
 * com.oracle.js.parser}, used as a library: no script is run), and checked over its syntax tree for
 *
 * <ul>
 *   <li>an assignment to a name declared in no enclosing scope (an implicit global: a module is strict,
 *       so the browser would throw a ReferenceError when the line runs);
 *   <li>{@code ==} or {@code !=}, except against {@code null} (which also matches undefined, on purpose);
 *   <li>a function declaration, not exported, whose name is used nowhere in the files linted together.
 * </ul>
 */
final class ScriptLint {

  /** The ECMAScript version the files are parsed as: 15 is ES2024. */
  private static final int ES_VERSION = 15;

  /** A problem found: the file, its line and what is wrong. */
  record Finding(String file, int line, String what) {
    @Override
    public String toString() {
      return file + ":" + line + ": " + what;
    }
  }

  private ScriptLint() {}

  /** The findings of the files linted together (name to source), in file order. */
  static List<Finding> lint(Map<String, String> files) {
    List<Finding> out = new ArrayList<>();
    Map<String, List<Object[]>> declared = new LinkedHashMap<>(); // function name -> [file, line]
    Set<String> used = new java.util.HashSet<>();
    for (Map.Entry<String, String> f : files.entrySet()) {
      String name = f.getKey();
      String text = f.getValue();
      FunctionNode module;
      try {
        ScriptEnvironment env = ScriptEnvironment.builder().ecmaScriptVersion(ES_VERSION).strict(true).build();
        module = new Parser(env, Source.sourceFor(name, text), new ErrorManager.ThrowErrorManager()).parseModule(name);
      } catch (ParserException e) {
        out.add(new Finding(name, e.getLineNumber(), "syntax error: " + e.getMessage().lines().findFirst().orElse("")));
        continue;
      }
      Checks checks = new Checks(name, text, out);
      module.accept(checks);
      checks.functions.forEach((fn, line) -> declared.computeIfAbsent(fn, k -> new ArrayList<>()).add(new Object[] {name, line}));
      used.addAll(checks.references);
      // an exported function is the module's interface: used
      module.getModule().getLocalExportEntries().forEach(e -> used.add(String.valueOf(e.getLocalName())));
    }
    declared.forEach((fn, where) -> {
      if (!used.contains(fn)) {
        where.forEach(w -> out.add(new Finding((String) w[0], (Integer) w[1], "function " + fn + " is declared and never used")));
      }
    });
    return out;
  }

  private static final class Checks extends NodeVisitor<LexicalContext> {
    private final String file;
    private final String text;
    private final List<Finding> out;
    final Map<String, Integer> functions = new LinkedHashMap<>();
    final Set<String> references = new java.util.HashSet<>();
    private final Set<IdentNode> declarationNames = Collections.newSetFromMap(new IdentityHashMap<>());

    Checks(String file, String text, List<Finding> out) {
      super(new LexicalContext());
      this.file = file;
      this.text = text;
      this.out = out;
    }

    private int line(Node n) {
      int line = 1;
      for (int i = 0; i < Math.min(n.getStart(), text.length()); i++) {
        if (text.charAt(i) == '\n') {
          line++;
        }
      }
      return line;
    }

    @Override
    public boolean enterVarNode(VarNode v) {
      if (v.isFunctionDeclaration()) {
        functions.putIfAbsent(v.getName().getName(), line(v));
        declarationNames.add(v.getName());
        if (v.getInit() instanceof FunctionNode f && f.getIdent() != null) {
          declarationNames.add(f.getIdent());
        }
      }
      return true;
    }

    @Override
    public boolean enterIdentNode(IdentNode id) {
      if (!declarationNames.contains(id)) {
        references.add(id.getName());
      }
      return true;
    }

    @Override
    public boolean enterBinaryNode(BinaryNode b) {
      if ((b.isTokenType(TokenType.EQ) || b.isTokenType(TokenType.NE)) && !isNull(b.getLhs()) && !isNull(b.getRhs())) {
        out.add(new Finding(file, line(b), "use " + (b.isTokenType(TokenType.EQ) ? "===" : "!==") + " (== and != only against null)"));
      }
      if (b.isAssignment()) {
        undeclared(b.getAssignmentDest(), b);
      }
      return true;
    }

    @Override
    public boolean enterUnaryNode(UnaryNode u) {
      if (u.isSelfModifying()) {
        undeclared(u.getExpression(), u);
      }
      return true;
    }

    private void undeclared(Expression dest, Node at) {
      if (!(dest instanceof IdentNode id) || id.isThis() || id.isSuper()) {
        return;
      }
      for (Scope s = lc.getCurrentScope(); s != null; s = s.getParent()) {
        if (s.hasSymbol(id.getName())) {
          return;
        }
      }
      out.add(new Finding(file, line(at), "assignment to undeclared " + id.getName() + " (an implicit global)"));
    }

    private static boolean isNull(Expression e) {
      return e instanceof LiteralNode<?> l && l.getValue() == null; // the null literal
    }
  }
}
