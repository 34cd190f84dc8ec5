import { checkInPage } from "./check.js";
checkInPage();
