/*
 * lessonlib-rise-widgets: widgets (ipywidgets 8, pythreejs) in jupyterlab-rise's live slideshow.
 *
 * The cause. The slideshow (/rise/<notebook>) is its own small JupyterLab app, prebuilt by
 * jupyterlab-rise 0.43.1 from a subset of JupyterLab's packages. It loads the federated extensions
 * like JupyterLab does: every extension's container is init()-ed with the shared-module scope, then
 * its plugins are fetched with get(). The ipywidgets manager (@jupyter-widgets/jupyterlab-manager 5,
 * from jupyterlab_widgets 3) imports @jupyterlab/console, for the optional IConsoleTracker token that
 * lets widgets render in consoles, as a shared singleton with no fallback. The slideshow app does not
 * ship @jupyterlab/console, so get() throws "Shared module @jupyterlab/console doesn't exist in shared
 * scope default": the manager never starts, no plugin provides its widget registry, pythreejs fails to
 * activate, and every widget shows as its text repr (jupyterlab-contrib/rise#119, #126).
 *
 * The fix. This container shares a module @jupyterlab/console holding just that token, and only when
 * the app has none (JupyterLab itself always has the real package: this file then does nothing). The
 * slideshow has no console, so nothing provides the token and the manager's optional tracker is null,
 * which is what the real package would give there too. Nothing else is exported or loaded.
 *
 * Also in the slideshow only: Reveal centres a slide when it lays it out, but the widget views on it
 * grow afterwards (a 3D view, a plot image arriving from the kernel), so the first slide shown ran off
 * the bottom of the screen (lesson 05's arm panel: its torque plot below the fold). When an output
 * area on a slide changes size, or a <details> ("Answer") is opened or closed, this asks Reveal to lay
 * the slide out again (a window 'resize').
 *
 * And the projection style (PROJECTION_CSS below), in the slideshow only: the slideshow shows the notebook with
 * JupyterLab's own sizes (prose 14 px, code 13 px, widget labels 13 px), too small to read from the back of a
 * room. The style gives it the static deck's sizes as a 1280×720 screen shows them (tools/deck/course.css
 * and nbconvert's reveal template, with reveal's scale of 0.97 there: prose 24 px (23.3 in the deck), code
 * cells and their output 18.5 px (19 × 0.97 = 18.4), code inside prose 17 px, tables 0.85 em, headings
 * 1.7 / 1.4 / 1.15 em), widget labels of 17 px and side margins of 20 px (about 110 characters of code a
 * line, as in the deck), and hides the prompts and the collapser bars. It is in CSS px, for the 1280×720 layout the
 * course is made for; on a larger screen zoom the browser until the window is 1280×720 CSS px (150 % at
 * 1920×1080). tools/slidefit.py --live measures it, tests/test_slides_live.py checks it.
 *
 * It is a prebuilt federated extension written by hand (no build step): JupyterLab and the slideshow
 * only need window._JUPYTERLAB[name] with init(shareScope) and get(module). It has no plugins.
 * tests/test_browser.py::test_live_slideshow_slider_moves_the_arm checks it in a real browser.
 */
(function () {
  'use strict';
  var NAME = 'lessonlib-rise-widgets';
  var CONSOLE = '@jupyterlab/console';

  /** The course's projection style for the live slideshow (see the header; keep it in step with tools/deck/course.css). */
  var PROJECTION_CSS = [
    '.reveal {',
    '  --jp-content-font-size1: 24px; --jp-content-line-height: 1.35; --jp-code-font-size: 18.5px;',
    '  --jp-code-line-height: 1.3; --jp-widgets-font-size: 17px; --jp-widgets-inline-height: 32px;',
    '  --jp-widgets-inline-label-width: 110px; --jp-cell-prompt-width: 0px;',
    '}',
    '.reveal .slides { text-align: left; }',
    '.reveal .jp-RenderedHTMLCommon, .reveal .jp-RenderedHTMLCommon h1, .reveal .jp-RenderedHTMLCommon h2,',
    '.reveal .jp-RenderedHTMLCommon h3, .reveal .jp-RenderedHTMLCommon h4 {',
    '  font-family: "Source Sans Pro", "Helvetica Neue", Helvetica, Arial, "Noto Sans CJK SC", sans-serif;',
    '}',
    '.reveal .jp-RenderedHTMLCommon { font-size: 24px; line-height: 1.35; padding-right: 0; }',
    '.reveal .jp-RenderedHTMLCommon h1 { font-size: 1.7em; } .reveal .jp-RenderedHTMLCommon h2 { font-size: 1.4em; }',
    '.reveal .jp-RenderedHTMLCommon h3 { font-size: 1.15em; } .reveal .jp-RenderedHTMLCommon h4 { font-size: 1em; }',
    '.reveal .jp-RenderedHTMLCommon h1, .reveal .jp-RenderedHTMLCommon h2, .reveal .jp-RenderedHTMLCommon h3,',
    '.reveal .jp-RenderedHTMLCommon h4 { text-transform: none; margin: 0 0 0.4em 0; line-height: 1.2; color: #111; }',
    '.reveal .jp-RenderedHTMLCommon p, .reveal .jp-RenderedHTMLCommon li { font-size: 1em; line-height: 1.35; }',
    '.reveal .jp-RenderedHTMLCommon p { margin: 0 0 0.5em 0; }',
    '.reveal .jp-RenderedHTMLCommon details, .reveal .jp-RenderedHTMLCommon summary { font-size: 1em; line-height: 1.35; }',
    '.reveal .jp-RenderedHTMLCommon table { font-size: 0.85em; margin: 0.3em 0; }',
    '.reveal .jp-RenderedHTMLCommon code, .reveal .jp-RenderedHTMLCommon pre, .reveal .jp-InputArea-editor,',
    '.reveal .jp-OutputArea-output pre {',
    '  font-family: "DejaVu Sans Mono", Menlo, Consolas, "Noto Sans CJK SC", monospace; font-size: 17px; line-height: 1.3;',
    '}',
    '.reveal .jp-InputArea-editor, .reveal .jp-InputArea-editor .cm-editor, .reveal .jp-InputArea-editor .cm-content,',
    '.reveal .jp-OutputArea-output pre { font-size: 18.5px; line-height: 1.3; }',
    '.reveal .jp-OutputArea-output pre { white-space: pre; overflow-x: hidden; }',
    '.reveal .jp-RenderedText { padding-left: 7px; }',
    '.reveal .jp-InputPrompt, .reveal .jp-OutputPrompt, .reveal .jp-Collapser { display: none; }',
    '.reveal .slides section > .jp-Cell { padding: 2px 20px; }',
    '.reveal .jp-OutputArea-output img { max-width: 100%; }',
    '.reveal .jupyter-widgets { font-size: 17px; }',
    '.reveal .widget-label, .reveal .widget-readout, .reveal .widget-label-basic, .reveal .widget-button,',
    '.reveal .widget-dropdown select, .reveal .widget-toggle-button { font-size: 17px; }'
  ].join('\n');

  /** Put the projection style into the slideshow's page (once). */
  function addProjectionStyle() {
    if (typeof document === 'undefined' || document.getElementById('lessonlib-projection-style')) return;
    var style = document.createElement('style');
    style.id = 'lessonlib-projection-style';
    style.textContent = PROJECTION_CSS;
    document.head.appendChild(style);
  }

  /** Compare two versions "a.b.c[-pre]" numerically, part by part (prerelease tags ignored). */
  function compareVersions(a, b) {
    var x = a.split('-')[0].split('.').map(Number);
    var y = b.split('-')[0].split('.').map(Number);
    for (var k = 0; k < Math.max(x.length, y.length); k++) {
      var d = (x[k] || 0) - (y[k] || 0);
      if (d !== 0) return d;
    }
    return 0;
  }

  /** The newest version registered for a shared package, or null. */
  function newest(scope, pkg) {
    var versions = Object.keys(scope[pkg] || {});
    return versions.length ? versions.sort(compareVersions)[versions.length - 1] : null;
  }

  /** Call fn at most once per `ms` milliseconds, after the burst that triggered it. */
  function debounced(fn, ms) {
    var pending = null;
    return function () {
      if (pending === null) pending = setTimeout(function () { pending = null; fn(); }, ms);
    };
  }

  /** Re-lay out the slideshow (Reveal listens to window 'resize') whenever an output area on a slide changes size. */
  function relayoutWhenOutputsResize() {
    if (typeof ResizeObserver === 'undefined' || typeof MutationObserver === 'undefined') return;
    var resized = new ResizeObserver(debounced(function () { window.dispatchEvent(new Event('resize')); }, 150));
    var watched = new WeakSet();
    var watchNewOutputs = debounced(function () {
      var areas = document.querySelectorAll('.reveal .jp-OutputArea');
      for (var k = 0; k < areas.length; k++) {
        if (!watched.has(areas[k])) { watched.add(areas[k]); resized.observe(areas[k]); }
      }
    }, 200);
    new MutationObserver(watchNewOutputs).observe(document.body, { childList: true, subtree: true });
    // An opened (or closed) <details>, e.g. a self-test's "Answer", changes the slide's height too.
    document.addEventListener('toggle', function (event) {
      if (event.target && event.target.closest && event.target.closest('.reveal')) {
        window.dispatchEvent(new Event('resize'));
      }
    }, true);
  }

  function init(scope) {
    if (scope[CONSOLE] && Object.keys(scope[CONSOLE]).length) return;  // JupyterLab: the real package
    var coreutils = newest(scope, '@lumino/coreutils');
    if (!coreutils) return;                     // not a JupyterLab 4 app: leave it alone
    // The version of the app's own JupyterLab packages, so the module sits with its siblings.
    var version = newest(scope, '@jupyterlab/notebook') || newest(scope, '@jupyterlab/application') || '4.0.0';
    var module = null;
    scope[CONSOLE] = {};
    scope[CONSOLE][version] = {
      from: NAME,
      eager: false,
      get: function () {
        return Promise.resolve(scope['@lumino/coreutils'][coreutils].get()).then(function (factory) {
          var Token = factory().Token;
          module = module || {
            IConsoleTracker: new Token(CONSOLE + ':IConsoleTracker',
                                       'The console tracker (none in a jupyterlab-rise slideshow).')
          };
          return function () { return module; };
        });
      }
    };
    relayoutWhenOutputsResize();
    addProjectionStyle();
  }

  function get(request) {
    return Promise.reject(new Error(NAME + ' has no module ' + request + ' (it only shares ' + CONSOLE + ')'));
  }

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = { init: init, get: get };
})();
