// ESLint's flat config (`npx eslint templates/js tests/js tools eslint.config.js`, or `npm run lint`): the pages'
// ES modules run in a browser, the unit tests (node --test) and tools/ in Node. The house rules on size hold here as
// in the Python (tests/unit/test_code_sizes.py): no module over 400 lines, no function over 60, comments counted.
import js from "@eslint/js";
import globals from "globals";

export default [
  // Bundles written by `npm run bundle` (their modules are linted) and the libraries are not the project's code.
  { ignores: ["node_modules/", "templates/generated/", "site/", "build/"] },
  js.configs.recommended,
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
    rules: {
      "max-lines": ["error", { max: 400, skipBlankLines: false, skipComments: false }],
      "max-lines-per-function": ["error", { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }],
      "no-unused-vars": ["error", { caughtErrors: "none" }],
      "no-var": "off",  // the modules keep the figure pages' ES5 style; `var` and `let` are both fine
      "eqeqeq": ["error", "always"],
      "no-implicit-globals": "error",
      "no-shadow": ["error", { builtinGlobals: false }],
      "prefer-const": "off",
    },
  },
  { files: ["templates/js/**/*.js"], languageOptions: { globals: { ...globals.browser } } },
  { files: ["tests/js/**", "tools/**", "eslint.config.js"], languageOptions: { globals: { ...globals.node } } },
];
