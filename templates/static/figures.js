// Draws every chart on the page from the Vega-Lite spec embedded beside it (no network, works from file://).
(function () {
  "use strict";
  var charts = document.querySelectorAll("[data-spec]");
  Array.prototype.forEach.call(charts, function (el) {
    var spec = JSON.parse(document.getElementById(el.getAttribute("data-spec")).textContent);
    window.vegaEmbed(el, spec, { actions: false, renderer: "svg" })
      .then(function (result) {
        el.vegaView = result.view;
        el.setAttribute("data-rendered", "true");
      })
      .catch(function (error) {
        el.setAttribute("data-rendered", "error");
        el.textContent = "The chart could not be drawn: " + error.message;
        console.error(error);
      });
  });
})();
