package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium for the dashboard tests (the system's {@code /usr/bin/chromium} and {@code
 * /usr/bin/chromedriver}, as {@link DashboardTest} uses), with waits that retry when a refresh
 * replaced what they look at. Every wait has a deadline; nothing sleeps.
 */
final class DashboardBrowser implements AutoCloseable {

  static final Duration DEADLINE = Duration.ofSeconds(30);

  final ChromeDriver driver;
  final WebDriverWait wait;
  private final ChromeDriverService service;

  DashboardBrowser(Path profile, int width, int height) throws Exception {
    if (!Files.isExecutable(DashboardTest.CHROMIUM) || !Files.isExecutable(DashboardTest.CHROMEDRIVER)) {
      fail("the dashboard tests need Chromium and its driver at " + DashboardTest.CHROMIUM + " and "
          + DashboardTest.CHROMEDRIVER + ": install them with `apt-get install -y chromium chromium-driver`, or pass "
          + "their paths with -Dalmanac.test.chromium=... -Dalmanac.test.chromedriver=...");
    }
    System.setProperty("webdriver.chrome.driver", DashboardTest.CHROMEDRIVER.toString());
    service = new ChromeDriverService.Builder().usingDriverExecutable(DashboardTest.CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(DashboardTest.CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--user-data-dir=" + Files.createDirectories(profile), "--window-size=" + width + "," + height);
    driver = new ChromeDriver(service, options);
    wait = new WebDriverWait(driver, DEADLINE);
  }

  /** Opens a URL and waits until the page has rendered the view the hash names. */
  void open(String url) {
    driver.get(url);
    loaded();
  }

  /** Waits until the page has read the node once since it last loaded. */
  void loaded() {
    wait.until(d -> "true".equals(d.findElement(By.tagName("body")).getAttribute("data-loaded")));
  }

  /** Clicks what the selector finds once it is shown and enabled, again if a refresh replaced it meanwhile. */
  void click(String css) {
    wait.until(d -> {
      try {
        WebElement e = d.findElement(By.cssSelector(css));
        if (!e.isDisplayed() || !e.isEnabled()) {
          return false;
        }
        e.click();
        return true;
      } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException
          | org.openqa.selenium.ElementNotInteractableException e) {
        return false;
      }
    });
  }

  /** The text (attribute null) or an attribute of what the selector finds, again if a refresh replaced it. */
  String read(String css, String attribute) {
    return wait.until(d -> {
      try {
        WebElement e = d.findElement(By.cssSelector(css));
        return attribute == null ? e.getText() : e.getAttribute(attribute);
      } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException e) {
        return null;
      }
    });
  }

  /** Waits until the selector's text contains a part, and returns the text; a timeout says the text it saw. */
  String until(String css, String part) {
    try {
      wait.until(d -> {
        try {
          return d.findElement(By.cssSelector(css)).getText().contains(part);
        } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException e) {
          return false;
        }
      });
    } catch (org.openqa.selenium.TimeoutException e) {
      throw new AssertionError(css + " never contained \"" + part + "\": it shows \"" + read(css, null) + "\"", e);
    }
    return read(css, null);
  }

  /** Waits until an attribute of what the selector finds has a value. */
  void attribute(String css, String attribute, String value) {
    try {
      wait.until(d -> {
        try {
          return value.equals(d.findElement(By.cssSelector(css)).getAttribute(attribute));
        } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException e) {
          return false;
        }
      });
    } catch (org.openqa.selenium.TimeoutException e) {
      throw new AssertionError(css + " [" + attribute + "] never was \"" + value + "\": it is \""
          + read(css, attribute) + "\"", e);
    }
  }

  /** Types into an input, replacing what it held. */
  void type(String css, String text) {
    WebElement e = wait.until(d -> d.findElement(By.cssSelector(css)));
    e.clear();
    e.sendKeys(text);
  }

  /** How many elements the selector finds, once it is that many (waits for a refresh to settle). */
  int count(String css, int expected) {
    try {
      wait.until(d -> d.findElements(By.cssSelector(css)).size() == expected);
    } catch (org.openqa.selenium.TimeoutException e) {
      return driver.findElements(By.cssSelector(css)).size();
    }
    return expected;
  }

  /** The attributes an attribute takes over what a selector finds, in document order. */
  List<String> all(String css, String attribute) {
    return wait.until(d -> {
      try {
        return d.findElements(By.cssSelector(css)).stream().map(e -> e.getAttribute(attribute)).toList();
      } catch (StaleElementReferenceException e) {
        return null;
      }
    });
  }

  /**
   * With {@code -Dalmanac.writeScreenshots=true}, saves the window's view as docs/screenshots/{name}.png.
   *
   * @param name the file's name without .png
   */
  void screenshot(String name) throws java.io.IOException {
    if (!Boolean.getBoolean("almanac.writeScreenshots")) {
      return;
    }
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !Files.isRegularFile(root.resolve("docs/http-api.md"))) {
      root = root.getParent();
    }
    if (root == null) {
      throw new IllegalStateException("cannot find the repository's docs/ above " + Path.of("").toAbsolutePath());
    }
    Files.write(Files.createDirectories(root.resolve("docs/screenshots")).resolve(name + ".png"),
        driver.getScreenshotAs(org.openqa.selenium.OutputType.BYTES));
  }

  Object script(String js, Object... args) {
    return driver.executeScript(js, args);
  }

  /**
   * Retries {@code check} until it holds, every 25 ms, for at most {@link #DEADLINE}; its last
   * failure is thrown then.
   *
   * @param node the test's node (its probe runs the retries)
   * @param check the assertion
   */
  static void eventually(org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit node, Runnable check) {
    node.createTestProbe().awaitAssert(DEADLINE, Duration.ofMillis(25), () -> {
      check.run();
      return null;
    });
  }

  /**
   * A dashboard test's end: its browser closed (if it started), then its node shut down, whatever the
   * browser's close threw.
   *
   * @param browser the test's browser, or null
   * @param node the test's node, or null
   */
  static void closeWith(DashboardBrowser browser, org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit node) {
    try {
      if (browser != null) {
        browser.close();
      }
    } finally {
      if (node != null) {
        node.shutdownTestKit();
      }
    }
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      service.stop();
    }
  }
}
