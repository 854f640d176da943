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
 * area on a slide changes size, this asks Reveal to lay the slide out again (a window 'resize').
 *
 * It is a prebuilt federated extension written by hand (no build step): JupyterLab and the slideshow
 * only need window._JUPYTERLAB[name] with init(shareScope) and get(module). It has no plugins.
 * tests/test_browser.py::test_live_slideshow_slider_moves_the_arm checks it in a real browser.
 */
(function () {
  'use strict';
  var NAME = 'lessonlib-rise-widgets';
  var CONSOLE = '@jupyterlab/console';

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
  }

  function get(request) {
    return Promise.reject(new Error(NAME + ' has no module ' + request + ' (it only shares ' + CONSOLE + ')'));
  }

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = { init: init, get: get };
})();
